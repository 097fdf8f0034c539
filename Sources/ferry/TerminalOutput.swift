import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output for live progress: unbuffered (a line shows up at once, even in a pipe), and aware of a line
/// being redrawn in place, so whoever writes next (a final line, a warning, the SIGINT handler) ends it first.
final class TerminalOutput: Sendable {
    static let standard = TerminalOutput()

    /// True when stdout is a terminal (then progress redraws one line; otherwise it prints plain lines).
    let isTerminal: Bool
    /// Lines of the block being redrawn in place (0: none open).
    private let drawn = Mutex(0)

    private init() {
        isTerminal = isatty(STDOUT_FILENO) == 1
    }

    /// The terminal's width in columns (80 when unknown).
    var columns: Int {
        var size = winsize()
        let status = withUnsafeMutablePointer(to: &size) { ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), $0) }
        if status == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return ProcessInfo.processInfo.environment["COLUMNS"].flatMap(Int.init) ?? 80
    }

    /// Replaces the line being redrawn (or starts one): carriage return, text, clear to the end of the line.
    func redraw(_ text: String) {
        redraw(block: [text])
    }

    /// Replaces the block of lines being redrawn (or starts one): back to its first line, clear to the end of the
    /// screen, the new lines. A block shorter than the last leaves no stale lines below it.
    func redraw(block lines: [String]) {
        drawn.withLock { count in
            if count <= 1 && lines.count == 1 {
                Self.write("\r" + lines[0] + "\u{1B}[K")
            } else {
                let up = count > 1 ? "\u{1B}[\(count - 1)A" : ""
                Self.write("\r" + up + "\u{1B}[J" + lines.joined(separator: "\n"))
            }
            count = max(1, lines.count)
        }
    }

    /// Writes a whole line, ending a line being redrawn first.
    func line(_ text: String) {
        drawn.withLock { count in
            Self.write((count > 0 ? "\n" : "") + text + "\n")
            count = 0
        }
    }

    /// Ends a line being redrawn, if there is one (before writing to stderr, or on exit).
    func endLine() {
        drawn.withLock { count in
            if count > 0 { Self.write("\n") }
            count = 0
        }
    }

    private static func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            // A closed or broken stdout: nothing more can be shown, and waiting goes on regardless.
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }
}
