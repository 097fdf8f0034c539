/// A request body exceeded ``DevServerConfiguration/maxRequestBodyBytes`` (Dropbox: 150 MiB).
struct BodyTooLarge: Error {}
