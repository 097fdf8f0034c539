/// Stands in for errors whose own description would quote a header value.
enum HTTPClientErrorProbe: Error {
    case headerValue(String)
}
