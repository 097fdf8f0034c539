import FerryCore
import Foundation

extension FileFilter {
    /// The filter as `ferry schedule show` prints it: the rules in order as `+ GLOB` / `- GLOB`, then the limits as
    /// their flags (a span stays a span: it is counted back from each tick).
    var summary: String {
        var parts = [String]()
        // The rule an --include adds to leave the rest out is implied by the includes; it is not shown.
        let shown = rules.filter { !($0.origin.hasPrefix("--include (") && $0.pattern.text == "**") }
        if !shown.isEmpty { parts.append("rules [" + shown.map { ($0.include ? "+ " : "- ") + $0.pattern.text }.joined(separator: ", ") + "]") }
        if let minSize { parts.append("--min-size \(TablePrinter.bytes(minSize))") }
        if let maxSize { parts.append("--max-size \(TablePrinter.bytes(maxSize))") }
        if let maxAge { parts.append("--max-age \(Self.span(maxAge))") }
        if let minAge { parts.append("--min-age \(Self.span(minAge))") }
        if let modifiedAfter { parts.append("--max-age \(ScheduleTime.iso8601(modifiedAfter))") }
        if let modifiedBefore { parts.append("--min-age \(ScheduleTime.iso8601(modifiedBefore))") }
        return parts.isEmpty ? "none" : parts.joined(separator: " ")
    }

    /// A span in the largest unit that divides it: 7d, 36h, 90m, 45s.
    private static func span(_ seconds: TimeInterval) -> String {
        let whole = Int64(seconds)
        for (unit, size) in [("w", Int64(604_800)), ("d", 86_400), ("h", 3600), ("m", 60)] where whole >= size && whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }
}
