/// A worker that cannot start as configured (exit 78, EX_CONFIG): the message names the problem and the fix.
struct WorkerConfigurationError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
