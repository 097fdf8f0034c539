/// Bounds and defaults for job fields. Refusing out-of-range values at enqueue keeps bad jobs out of the queue.
public enum JobLimits {
    public static let defaultQueue = "default"
    public static let priorityRange: ClosedRange<Int64> = -100...100
    public static let defaultPriority: Int64 = 0
    public static let maxAttemptsRange: ClosedRange<Int64> = 1...1000
    public static let defaultMaxAttempts: Int64 = 10
    public static let maxBatchNameBytes = 200
    public static let maxKeyBytes = 255
    public static let maxMetadataBytes = 16 * 1024
    /// How far ahead a job may be scheduled.
    public static let maxScheduleAheadSeconds: Double = 366 * 86_400

    /// Queue names: lowercase letters, digits, `_`, `.`, `-`; 1–63 characters starting with a letter or digit.
    public static func isValidQueueName(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63,
            (97...122).contains(first) || (48...57).contains(first)
        else { return false }
        return name.utf8.allSatisfy {
            (97...122).contains($0) || (48...57).contains($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
                || $0 == UInt8(ascii: "-")
        }
    }
}
