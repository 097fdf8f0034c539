/// What a stream is told: the channel (empty after the listener reconnected: look again) and its payload.
struct HubEvent: Sendable {
    var channel: String
    var payload: String
}
