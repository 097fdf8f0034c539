import FerryCore

/// Escaping for the few XML request bodies S3 takes.
enum S3XMLWriter {
    /// Text with `& < > " '` replaced by entities.
    static func escape(_ text: String) -> String { MarkupEscaping.escape(text) }
}
