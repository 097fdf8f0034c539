import Foundation

/// A remote folder's claim as `MemoryWorkerStore` keeps it (a row of `ferry.remote_folders`).
struct MemoryRemoteFolder: Sendable {
    var id: String?
    var owner: String
    var claimedAt: Date
}
