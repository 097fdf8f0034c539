import Hummingbird

/// Puts the browser-hardening headers on every response, errors and 404s included: a Content-Security-Policy
/// that allows only the page's own inline style and script (by hash) and same-origin fetches, no framing
/// (clickjacking), no MIME sniffing, and no URLs (with batch names) leaked to other sites in `Referer`.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            // Converted here, not by the router after the middleware, so 404s get the headers too.
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = DashboardAssets.contentSecurityPolicy
        response.headers[Self.frameOptions] = "DENY"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.referrerPolicy] = "same-origin"
        return response
    }

    // Not among HTTPTypes' predefined names.
    static var frameOptions: HTTPFields.Element.Name { HTTPFields.Element.Name("X-Frame-Options")! }
    static var referrerPolicy: HTTPFields.Element.Name { HTTPFields.Element.Name("Referrer-Policy")! }
}
