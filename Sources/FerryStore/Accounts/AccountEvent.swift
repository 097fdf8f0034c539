import Foundation

/// One row of `ferry.account_events`.
public struct AccountEvent: Sendable {
    public var type: String
    public var data: String
    public var recordedAt: Date
}
