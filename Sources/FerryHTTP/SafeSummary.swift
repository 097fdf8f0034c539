/// Error text from a remote answer or a transport failure made safe to show: every secret replaced by a marker,
/// then cut to a length (in that order, so a cut cannot leave half a secret). What each provider's error type
/// puts in its summary.
public enum SafeSummary {
    /// `text` trimmed and cut to `limit` characters (an ellipsis marks a cut).
    public static func truncate(_ text: String, limit: Int) -> String {
        let trimmed = text.trimmingSpaces
        guard trimmed.count > limit else { return trimmed }
        return String(trimmed.prefix(limit)) + "…"
    }

    /// Replaces every secret of at least 4 characters, as written and as `encoded` spells it (form encoding unless
    /// told), with a marker.
    public static func redact(
        _ text: String, secrets: [String], encoded: (String) -> String = FormEncoding.escape
    ) -> String {
        var text = text
        for secret in secrets where secret.count >= 4 {
            for spelling in Set([secret, encoded(secret)]) where text.contains(spelling) {
                text = text.replacing(spelling, with: "[REDACTED]")
            }
        }
        return text
    }
}
