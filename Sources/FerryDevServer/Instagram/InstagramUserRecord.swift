/// An emulated Instagram user: its feed (newest first) and how the server treats it (token lifetimes, usage
/// reported, throttling).
struct InstagramUserRecord: Sendable {
    var userID: String
    var username: String
    var posts: [InstagramPost] = []
    /// Posts generated so far (the next one's number).
    var generated = 0
    /// Seconds a token issued to the user lives (60 days unless a test says otherwise).
    var tokenLifetime: Double = 60 * 86_400
    /// Seconds a token must have lived before it may be refreshed (a day unless a test says otherwise).
    var refreshMinimumAge: Double = 86_400
    /// The percentage the usage headers report.
    var usagePercent: Int64 = 5
    /// How many of the next API calls are refused with a rate limit (codes 4, 17, 32, 613 in turn).
    var throttleNext = 0
}
