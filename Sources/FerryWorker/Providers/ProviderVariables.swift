import Foundation

/// The environment variables providers read their tuning knobs from (switches for comparisons, not flags): the
/// process's by default, a worker's own when a test runs several in one process. The process's environment holds
/// secrets too (the secret key, database URLs), so these never print: not in a description, a dump or a log.
public struct ProviderVariables: Sendable, CustomStringConvertible, CustomReflectable {
    private let values: [String: String]

    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The value of variable `name`, if set.
    public subscript(_ name: String) -> String? { values[name] }

    public var description: String { "ProviderVariables(\(values.count) set, not shown)" }

    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
