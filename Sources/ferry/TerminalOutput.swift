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
    private let lineOpen = Mutex(false)

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
        lineOpen.withLock { open in
            Self.write("\r" + text + "\u{1B}[K")
            open = true
        }
    }

    /// Writes a whole line, ending a line being redrawn first.
    func line(_ text: String) {
        lineOpen.withLock { open in
            Self.write((open ? "\n" : "") + text + "\n")
            open = false
        }
    }

    /// Ends a line being redrawn, if there is one (before writing to stderr, or on exit).
    func endLine() {
        lineOpen.withLock { open in
            if open { Self.write("\n") }
            open = false
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
