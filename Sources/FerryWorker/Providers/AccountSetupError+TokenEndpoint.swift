import FerryHTTP

extension AccountSetupError {
    /// A token endpoint's refusal (or failure) in `account add` and `account login` terms: a refused grant or client
    /// names what to do about it; anything else is `unreachable` when worth a retry, `rejected` otherwise. `service`
    /// names who answered; `action` what was being done.
    static func tokenEndpoint<Failure: HTTPServiceFailure & OAuthGrantFailure>(
        _ error: Failure, service: String, doing action: String
    ) -> AccountSetupError {
        if error.rejectsGrant {
            return AccountSetupError(.rejected, "\(service) rejected the refresh token or code (invalid_grant): run ferry account login")
        }
        if error.rejectsClient {
            return AccountSetupError(
                .rejected, "\(service) rejected the client id or secret (invalid_client): check --client-id and --client-secret-file")
        }
        return AccountSetupError(
            error.isRetryable ? .unreachable : .rejected, "could not \(action) with \(service) (\(error)); retry, or add with --no-verify")
    }
}
