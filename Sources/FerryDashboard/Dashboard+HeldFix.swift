extension Dashboard {
    /// What to run for a held job, from why it was held (`code: message`): the fix of that code (a provider's own,
    /// from its descriptor's `failureFixes`, when the provider held the job with one), else the shared advice for a
    /// held account.
    func heldFix(_ reason: String?) -> String {
        fixes.text(code: reason.map { FailureSignature(error: $0).code } ?? "account_needs_login", exhausted: false)
    }
}
