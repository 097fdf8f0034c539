import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Makes SIGINT (Ctrl-C) end a waiting command cleanly: the progress line is finished, a note goes to stderr,
/// and the exit status is 130 (128 + SIGINT, what shells report), never a stack trace.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    init(output: TerminalOutput) {
        // Ignore the default action (terminate by signal) so only the dispatch source handles it.
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "ferry.interrupt"))
        source.setEventHandler {
            output.endLine()
            printError("interrupted")
            exit(ExitStatus.interrupted)
        }
        source.resume()
    }

    deinit {
        source.cancel()
    }
}
