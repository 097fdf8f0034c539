/// A live worker as recorded in `ferry.workers`.
public struct WorkerRegistration: Sendable, Hashable {
    public var name: String
    public var queues: [String]
    public var concurrency: Int
    public var host: String
    public var pid: Int32
    /// The release the worker runs (`FerryRelease.version`), shown on the dashboard's Workers page.
    public var version: String

    public init(name: String, queues: [String], concurrency: Int, host: String, pid: Int32, version: String = FerryRelease.version) {
        self.name = name
        self.queues = queues
        self.concurrency = concurrency
        self.host = host
        self.pid = pid
        self.version = version
    }
}
