import Dispatch

/// Runs blocking file system calls off Swift's cooperative pool (which has one thread per core here).
enum BlockingIO {
    private static let queue = DispatchQueue(label: "ferry.file-io", qos: .utility, attributes: .concurrent)

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
