/// Flickr accounts hold an API key (sealed as the app secret) and need no OAuth link: public photos only.
struct FlickrAccountKind: AccountKind {
    var linkedWithoutLogin: Bool { true }
    var usesStoredSecretsOnly: Bool { true }
}
