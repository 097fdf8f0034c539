import HTTPTypes

extension HTTPField.Name {
    /// Arguments of content routes.
    static var dropboxAPIArg: HTTPField.Name { HTTPField.Name("Dropbox-API-Arg")! }
    /// Result of download-style routes.
    static var dropboxAPIResult: HTTPField.Name { HTTPField.Name("Dropbox-API-Result")! }
}
