import NIOCore

/// Runs a task's jobs on one NIO event loop.
///
/// A download consumed under this preference runs on the event loop that reads its socket: AsyncHTTPClient
/// picks the caller's loop for the connection (`EventLoopGroup.any()`), so each piece of the body reaches the
/// loop that consumes it without a hop between threads, and the client's demand for more goes back the same
/// way. Only cheap work may run here (blocking file calls still go to `BlockingIO`).
final class EventLoopTaskExecutor: TaskExecutor {
    let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
