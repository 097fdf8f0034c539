/// A command of the namespace's failed.
struct NetworkNamespaceError: Error, CustomStringConvertible {
    let command: String
    let status: Int32
    let output: String

    var description: String { "`\(command)` exited \(status): \(output)" }
}
