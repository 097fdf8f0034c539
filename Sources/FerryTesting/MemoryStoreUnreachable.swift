/// What a `MemoryWorkerStore` call throws when a test cut the caller off (``MemoryWorkerStore/failHeartbeats(of:_:)``).
public struct MemoryStoreUnreachable: Error, Sendable, CustomStringConvertible {
    public init() {}

    public var description: String { "memory_store_unreachable: the test cut this worker off from the store" }
}
