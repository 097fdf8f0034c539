import Foundation
import Synchronization

/// Decides whether a POST may act.
///
/// - Authentication: `Authorization: Bearer TOKEN` (scripts), or the `ferry_session` cookie a browser gets by
///   posting the token to the login form. Token and sessions are compared in constant time.
/// - CSRF: a browser (cookie) request must carry the `csrf` form field equal to the `ferry_csrf` cookie
///   (double submit; the cookie is random per browser, HttpOnly and SameSite=Strict, so another site can neither
///   read it nor have it sent). A bearer request carries no ambient credential, so it needs no CSRF token.
final class ActionGuard: Sendable {
    enum Verdict: Equatable {
        case allowed
        /// 401: no credentials, or wrong ones.
        case unauthenticated(String)
        /// 403: read-only, or the CSRF check failed.
        case forbidden(String)
        /// 429: too many wrong tokens lately; try again after this many seconds.
        case throttled(Int)
    }

    static let sessionCookie = "ferry_session"
    static let csrfCookie = "ferry_csrf"
    /// Sessions kept at most (oldest dropped first), so logins cannot grow memory without bound.
    static let maxSessions = 1000

    let readOnly: Bool
    private let token: String?
    private let sessions = Mutex<[String]>([])
    let throttle: LoginThrottle

    init(readOnly: Bool, token: String?, throttle: LoginThrottle = LoginThrottle()) {
        self.readOnly = readOnly
        self.token = token
        self.throttle = throttle
    }

    /// Checks a login attempt; on success returns a new session id for the cookie. Wrong tokens count against
    /// the throttle; while it refuses, even the right token is not checked (callers ask `throttle` first).
    func login(token candidate: String?) -> String? {
        guard !readOnly, let token, let candidate, ConstantTime.equals(candidate, token) else {
            throttle.recordFailure()
            return nil
        }
        let session = ConstantTime.randomToken()
        sessions.withLock { sessions in
            sessions.append(session)
            if sessions.count > Self.maxSessions { sessions.removeFirst(sessions.count - Self.maxSessions) }
        }
        return session
    }

    func check(authorization: String?, sessionCookie: String?, csrfCookie: String?, csrfField: String?) -> Verdict {
        if readOnly { return .forbidden("the dashboard is read-only") }
        guard let token else { return .forbidden("actions are off: no token configured") }
        if let authorization {
            if let seconds = throttle.retryAfter() { return .throttled(seconds) }
            guard authorization.hasPrefix("Bearer "), ConstantTime.equals(String(authorization.dropFirst(7)), token) else {
                throttle.recordFailure()
                return .unauthenticated("wrong token")
            }
            return .allowed
        }
        guard let sessionCookie, isSession(sessionCookie) else {
            return .unauthenticated("log in with the dashboard token first")
        }
        guard let csrfCookie, let csrfField, !csrfCookie.isEmpty, ConstantTime.equals(csrfCookie, csrfField) else {
            return .forbidden("missing or wrong CSRF token: reload the page and try again")
        }
        return .allowed
    }

    func isSession(_ candidate: String) -> Bool {
        // Every stored session is compared (no early exit), each in constant time.
        sessions.withLock { sessions in
            sessions.reduce(false) { found, session in ConstantTime.equals(candidate, session) || found }
        }
    }
}
