import AsyncHTTPClient

extension HTTPClient {
    /// Runs `body` on one of this client's event loops (``EventLoopTaskExecutor``), so the connections it opens
    /// are read by the thread that consumes them. For downloads: their per-piece work is small, and anything
    /// blocking still goes to `BlockingIO`.
    func onEventLoop<T>(_ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(EventLoopTaskExecutor(loop: eventLoopGroup.next()), operation: body)
    }
}
