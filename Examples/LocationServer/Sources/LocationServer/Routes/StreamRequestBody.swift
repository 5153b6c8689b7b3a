import Hummingbird

extension Request {
    /// Refuses (`400`) a request for an event stream that carries a body.
    ///
    /// A stream learns that its client has gone by reading the connection past the request, and it reads no body:
    /// behind an unread body, a client that sends one without end (chunked) and then disconnects would not be seen to
    /// go, and its subscription would run on until a write failed.
    func refuseBody(of stream: String) throws {
        let length = headers[.contentLength]
        guard headers[.transferEncoding] != nil || (length != nil && length != "0") else { return }
        throw HTTPError(.badRequest, message: "\(stream): a stream takes no request body; send the GET without one")
    }
}
