/// A live worker as recorded in `ferry.workers`.
public struct WorkerRegistration: Sendable, Hashable {
    public var name: String
    public var queues: [String]
    public var concurrency: Int
    public var host: String
    public var pid: Int32

    public init(name: String, queues: [String], concurrency: Int, host: String, pid: Int32) {
        self.name = name
        self.queues = queues
        self.concurrency = concurrency
        self.host = host
        self.pid = pid
    }
}
