/// Why `ferry account add` could not set up an account. The text never contains a secret.
public struct AccountSetupError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A flag is missing or does not fit the provider.
        case usage
        /// The provider refused the credentials: fix them.
        case rejected
        /// The provider could not be asked: retry later, or add without checking.
        case unreachable
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
