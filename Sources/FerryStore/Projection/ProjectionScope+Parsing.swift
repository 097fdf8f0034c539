import FerryCore
import Foundation

extension ProjectionScope {
    /// Parses `verify --since`: a log position (digits), or a time as `--finished-before` takes it (an age such as
    /// `90s`, `10m`, `2h`, `1d`, or an RFC 3339 time). `nil` when the text is none of these.
    public init?(since text: String, now: Date = Date()) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            guard let position = Int64(trimmed) else { return nil }
            self = .afterPosition(position)
            return
        }
        guard let date = ScheduleTime.parseAgo(trimmed, now: now) else { return nil }
        self = .recordedSince(date)
    }
}
