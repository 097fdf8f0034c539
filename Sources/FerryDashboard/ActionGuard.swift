import Crypto
import Foundation

/// Decides whether a POST may act.
///
/// - Authentication: `Authorization: Bearer TOKEN` (scripts), or a session cookie a browser gets by posting the
///   token to the login form. Sessions live server-side (`SessionStore`) and expire; tokens are compared in constant
///   time.
/// - CSRF: a browser (cookie) request must carry the `csrf` form field equal to HMAC-SHA256 of its session id
///   under a key made at start and never stored, so a cookie planted by a neighbour on the same host (cookies are
///   shared across ports) cannot come with a matching field. The login form's field is bound the same way to the
///   browser's login cookie. A bearer request carries no ambient credential, so it needs no CSRF token.
/// - Origin: checked by the routes before this (`Dashboard.crossOriginRefusal`).
/// - Wrong tokens are throttled per source (`LoginThrottle`); the right token always passes.
final class ActionGuard: Sendable {
    enum Verdict: Equatable {
        case allowed
        /// 401: no credentials, or wrong ones.
        case unauthenticated(String)
        /// 403: read-only, or the CSRF check failed.
        case forbidden(String)
        /// 429: too many wrong tokens from this source lately; try again after this many seconds.
        case throttled(Int)
    }

    enum LoginOutcome: Equatable {
        /// The new session's id, for the session cookie.
        case session(String)
        case wrongToken
        /// Wrong, and this source is over its budget: 429 after this many seconds.
        case throttled(Int)
    }

    let readOnly: Bool
    private let token: String?
    let sessions: SessionStore
    let throttle: LoginThrottle
    /// Signs CSRF tokens. Per process: a restart ends every session anyway.
    private let key = SymmetricKey(size: .bits256)

    init(readOnly: Bool, token: String?, sessions: SessionStore, throttle: LoginThrottle = LoginThrottle()) {
        self.readOnly = readOnly
        self.token = token
        self.sessions = sessions
        self.throttle = throttle
    }

    /// Checks a login attempt from `sources`. The right token always logs in, even from a throttled source, so
    /// nobody can lock the operator out by sending wrong ones.
    func login(token candidate: String?, sources: [String]) -> LoginOutcome {
        guard !readOnly, let token, let candidate, ConstantTime.equals(candidate, token) else {
            return wrongToken(sources: sources)
        }
        return .session(sessions.create())
    }

    /// A POST's credentials: the bearer header, a user the sign-in proxy named (an operator, with the CSRF field
    /// bound to them), or the live session among `sessionCookies` plus its CSRF field.
    func check(
        authorization: String?, proxyUser: AuthProxy.User? = nil, sessionCookies: [String], csrfField: String?, sources: [String]
    ) -> Verdict {
        if readOnly { return .forbidden("the dashboard is read-only") }
        if authorization == nil, let proxyUser {
            guard proxyUser.isOperator else {
                return .forbidden("\(proxyUser.name) may only read: operators act (ferry dashboard --operator NAME)")
            }
            guard let csrfField, ConstantTime.equals(csrfField, csrfToken(proxyUser: proxyUser.name)) else {
                return .forbidden("missing or wrong CSRF token: reload the page and try again")
            }
            return .allowed
        }
        guard let token else { return .forbidden("actions are off: no token configured") }
        if let authorization {
            let candidate = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : ""
            guard ConstantTime.equals(candidate, token) else {
                if case .throttled(let seconds) = wrongToken(sources: sources) { return .throttled(seconds) }
                return .unauthenticated("wrong token")
            }
            return .allowed
        }
        guard let session = sessions.live(sessionCookies, touch: false) else {
            return .unauthenticated("log in with the dashboard token first (sessions end after a while without use)")
        }
        guard let csrfField, ConstantTime.equals(csrfField, csrfToken(session: session)) else {
            return .forbidden("missing or wrong CSRF token: reload the page and try again")
        }
        _ = sessions.live([session], touch: true)
        return .allowed
    }

    /// The CSRF token of a logged-in browser's forms.
    func csrfToken(session: String) -> String { sign("session:" + session) }

    /// The CSRF token of a proxy-signed-in user's forms (the proxy's own cookie is the ambient credential).
    func csrfToken(proxyUser: String) -> String { sign("proxy:" + proxyUser) }

    /// The CSRF token of the login form, bound to the browser's login cookie.
    func csrfToken(loginCookie: String) -> String { sign("login:" + loginCookie) }

    private func wrongToken(sources: [String]) -> LoginOutcome {
        if let seconds = throttle.retryAfter(sources) { return .throttled(seconds) }
        throttle.recordFailure(sources)
        return .wrongToken
    }

    private func sign(_ text: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Array(text.utf8), using: key)
            .map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
