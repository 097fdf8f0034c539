import Dispatch
import Foundation
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGINT for a long-running command, owned from the first line of `run` so none is lost.
///
/// ServiceGroup installs its own signal handling only once `run` has started; a SIGTERM sent between the
/// worker's first log line and that moment was dropped (signals were already ignored, no source listened), and the
/// worker ran on. Here the sources listen before the signals are ignored, so a signal either ends the process at
/// once (default action, before anything started) or is seen. The first one shuts the group down gracefully, also if
/// the group is attached later; a second one exits at once (jobs still held are rescued once the heartbeat goes
/// stale).
final class ShutdownSignals {
    private let sources: [any DispatchSourceSignal]
    private let state = Shared()

    private struct State {
        var seen = 0
        var group: ServiceGroup?
    }

    /// What the handlers and `attach` share: the signals seen and the group to shut down.
    private final class Shared: Sendable {
        let mutex = Mutex(State())
    }

    /// Starts listening. The default action is turned off first, as dispatch needs it: on Linux a source reads
    /// the signal through its own handler, which a later `signal(_, SIG_IGN)` would replace.
    static func install() -> ShutdownSignals {
        signal(SIGTERM, SIG_IGN)
        signal(SIGINT, SIG_IGN)
        let signals = ShutdownSignals()
        for source in signals.sources { source.resume() }
        return signals
    }

    private init() {
        let queue = DispatchQueue(label: "ferry.signals")
        let state = self.state
        sources = [SIGTERM, SIGINT].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
            source.setEventHandler { [source] in
                // Dispatch coalesces signals that arrive before the handler runs: `data` says how many there were.
                let arrived = max(1, Int(source.data))
                let (count, group) = state.mutex.withLock { state -> (Int, ServiceGroup?) in
                    state.seen += arrived
                    return (state.seen, state.group)
                }
                if count >= 2 {
                    FileHandle.standardError.write(Data("second signal: exiting now\n".utf8))
                    exit(130)
                }
                if let group { Task { await group.triggerGracefulShutdown() } }
            }
            return source
        }
    }

    /// The group a first signal shuts down; shut down at once when a signal came before it existed.
    func attach(_ group: ServiceGroup) {
        let pending = state.mutex.withLock { state -> Bool in
            state.group = group
            return state.seen > 0
        }
        if pending { Task { await group.triggerGracefulShutdown() } }
    }
}
