/// One column value of a replay as bytes in a ``ReplayArena``: COPY text format, still escaped, or SQL NULL.
///
/// Values stay escaped because both sides of a comparison come out of COPY with the same escaping, and a rebuild
/// sends them back through COPY: nothing is unescaped unless a report shows it.
struct ReplayText: Equatable {
    /// Offset of the first byte in the arena.
    var offset: Int32
    /// Length in bytes; -1 for NULL.
    var count: Int32

    static let null = ReplayText(offset: 0, count: -1)

    var isNull: Bool { count < 0 }
}
