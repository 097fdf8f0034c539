import FerryWorker
import Foundation

extension AccountLogin {
    /// How long a login waits for the browser's return or a pasted code.
    static let loginTimeout: TimeInterval = 600

    /// The authorization code: from the browser's return to the loopback address when the flow redirects there
    /// (`listener`), else (or first) pasted by the person, the code or the whole redirected address.
    static func authorizationCode(_ started: AccountLoginStart, listener: LoopbackRedirect?) async throws -> String {
        guard let listener else {
            printError("Open this URL in a browser, allow access, then paste the authorization code here:")
            printError("  \(started.url)")
            FileHandle.standardError.write(Data("code: ".utf8))
            return try SecretInput.readLine(what: "authorization code")
        }
        printError("Open this URL in a browser and allow access; Ferry listens on 127.0.0.1:\(listener.port) for the browser's return")
        printError("(on another machine, paste the code or the whole address the browser was sent to):")
        printError("  \(started.url)")
        FileHandle.standardError.write(Data("code: ".utf8))
        // Both wait on threads of their own (blocking reads); the first answer wins.
        return try await withCheckedThrowingContinuation { continuation in
            let once = OnceResume(continuation)
            Thread.detachNewThread {
                if let redirected = listener.waitForRedirect() { once.resume(.success(redirected)) }
            }
            Thread.detachNewThread {
                // An input that ends (no terminal, nothing piped) leaves the browser's return to answer.
                if let pasted = try? SecretInput.readLine(what: "authorization code") { once.resume(.success(pasted)) }
            }
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: Self.loginTimeout)
                once.resume(.failure(CLIUsageError(message: "no authorization arrived within \(Int(Self.loginTimeout / 60)) minutes: run ferry account login again")))
            }
        }
    }
}
