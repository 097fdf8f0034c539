/// Failures of the dev server itself (not Dropbox API errors).
public struct DevServerError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
