public import Foundation
public import Mappings

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// Fetches JSON from a REST API and maps it: AppCoreKit's `requestForObjectsWithUrl:…` and
/// `requestForObject:url:…`, as async functions.
///
/// A request GETs its URL with the parameters in the query (or POSTs a body), checks that the
/// status is 2xx and the content type JSON, parses the body, selects the part to map (a key
/// path or a closure, like `transformRawData`) and maps it with a context. What goes wrong
/// before mapping is a `FetchError` whose case says what; what goes wrong while mapping is in
/// the result's issues, as with `Mapper`.
/// ```swift
/// let fetcher = Fetcher(mapper: mapper)
/// let timeline = try await fetcher.objects(
///     Tweet.self, FetchRequest(url: url, parameters: ["count": "20"]), context: "$TweetModel",
///     select: .keyPath("statuses"))
/// ```
public struct Fetcher: Sendable {
    /// The mapper answers are mapped with (its catalog holds the contexts and typed models).
    public let mapper: Mapper
    /// The session requests go through (`URLSession.shared` by default).
    public let session: URLSession

    /// A fetcher mapping with `mapper`, sending requests through `session`.
    public init(mapper: Mapper, session: URLSession = .shared) {
        self.mapper = mapper
        self.session = session
    }

    // MARK: Dynamic objects

    /// One new object from the selected part of the response.
    public func object(_ request: FetchRequest, context: String, select: Selection = .whole) async throws(FetchError)
        -> MappingResult
    {
        let compiled = try compiledContext(context)
        return mapper.object(from: try await json(request, select: select), using: compiled)
    }

    /// One new object per element of the selected part of the response (a JSON array).
    public func objects(_ request: FetchRequest, context: String, select: Selection = .whole) async throws(FetchError)
        -> MappingResult
    {
        let compiled = try compiledContext(context)
        return mapper.objects(from: try await json(request, select: select), using: compiled)
    }

    /// Populates an existing object with the selected part of the response.
    public func update(_ existing: Value, _ request: FetchRequest, context: String, select: Selection = .whole)
        async throws(FetchError) -> MappingResult
    {
        let compiled = try compiledContext(context)
        return mapper.map(try await json(request, select: select), into: existing, using: compiled)
    }

    // MARK: Typed objects

    /// A new instance of `T` from the selected part of the response.
    public func object<T: MappedModel>(
        _ type: T.Type, _ request: FetchRequest, context: String, select: Selection = .whole
    ) async throws(FetchError) -> TypedMappingResult<T> {
        let compiled = try typed(T.self, context)
        return mapper.object(T.self, from: try await json(request, select: select), using: compiled)
    }

    /// One new instance of `T` per element of the selected part of the response.
    public func objects<T: MappedModel>(
        _ type: T.Type, _ request: FetchRequest, context: String, select: Selection = .whole
    ) async throws(FetchError) -> TypedMappingResult<[T]> {
        let compiled = try typed(T.self, context)
        return mapper.objects(T.self, from: try await json(request, select: select), using: compiled)
    }

    /// Populates an existing instance with the selected part of the response; returns the issues.
    @discardableResult
    public func update<T: MappedModel>(
        _ existing: inout T, _ request: FetchRequest, context: String, select: Selection = .whole
    ) async throws(FetchError) -> [MappingIssue] {
        let compiled = try typed(T.self, context)
        return mapper.map(try await json(request, select: select), into: &existing, using: compiled)
    }

    // MARK: The request

    /// The selected part of the response's JSON: the request sent, the status and content
    /// type checked, the body parsed.
    public func json(_ request: FetchRequest, select: Selection = .whole) async throws(FetchError) -> JSONValue {
        let url = try request.resolvedURL()
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request.urlRequest(url))
        } catch {
            throw .connection(url: url, message: Self.describe(error))
        }
        guard let http = response as? HTTPURLResponse else {
            throw .connection(url: url, message: "the answer is not HTTP")
        }
        guard (200..<300).contains(http.statusCode) else {
            // The start of the body, on one line.
            let excerpt = String(decoding: data.prefix(200), as: UTF8.self)
                .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.joined(
                    separator: " ")
            throw .status(url: url, code: http.statusCode, body: excerpt)
        }
        let contentType = http.value(forHTTPHeaderField: "Content-Type")
        guard Self.isJSON(contentType) else {
            throw .contentType(url: url, found: contentType)
        }
        let payload: JSONValue
        do {
            payload = try JSONParser.parse([UInt8](data))
        } catch {
            throw .invalidJSON(url: url, message: error.description)
        }
        switch select {
        case .whole:
            return payload
        case .keyPath(let text):
            let keyPath: PayloadKeyPath
            do {
                keyPath = try PayloadKeyPath(parsing: text)
            } catch {
                throw .selection(url: url, message: error.diagnostics.map(\.message).joined(separator: "; "))
            }
            switch keyPath.select(in: payload) {
            case .success(let value?): return value
            case .success(nil): throw .selection(url: url, message: "the response has nothing at \"\(text)\"")
            case .failure(let error):
                throw .selection(url: url, message: error.diagnostics.map(\.message).joined(separator: "; "))
            }
        case .transform(let body):
            do {
                return try body(payload)
            } catch {
                throw .selection(url: url, message: "\(error)")
            }
        }
    }

    /// `application/json`, `text/json` and `application/…+json`, with any parameters.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1)[0].trimmingCharacters(in: .whitespaces).lowercased()
        return media == "application/json" || media == "text/json"
            || (media.hasPrefix("application/") && media.hasSuffix("+json"))
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? URLError { return "\(error.localizedDescription) (URLError \(error.code.rawValue))" }
        return "\(error)"
    }

    private func compiledContext(_ identifier: String) throws(FetchError) -> CompiledContext {
        do {
            return try mapper.context(identifier)
        } catch {
            throw .mapping(error)
        }
    }

    private func typed<T: MappedModel>(_ type: T.Type, _ identifier: String) throws(FetchError) -> CompiledContext {
        do {
            return try mapper.typedContext(T.self, identifier)
        } catch {
            throw .mapping(error)
        }
    }
}

/// Which part of a response to map.
public enum Selection: Sendable {
    /// The whole body.
    case whole
    /// The value at a key path, as entries write them (`data.items`).
    case keyPath(String)
    /// What a closure returns for the body (AppCoreKit's `transformRawData`); throwing is a
    /// `FetchError.selection`.
    case transform(@Sendable (JSONValue) throws -> JSONValue)
}

/// An HTTP request to fetch JSON from.
public struct FetchRequest: Sendable {
    /// The URL, without the parameters.
    public var url: URL
    /// Added to the query, percent-encoded, in order.
    public var parameters: [(name: String, value: String)]
    /// A body makes the request a POST (unless `method` says otherwise).
    public var body: Data?
    /// The body's content type; `application/json` by default.
    public var contentType: String
    /// Request headers, set after `Accept: application/json` and the body's content type (so they can replace them).
    public var headers: [(name: String, value: String)]
    /// `GET`, or `POST` when there is a body, unless set.
    public var method: String?
    /// Seconds before the request gives up.
    public var timeout: TimeInterval

    /// A request for `url`; every part but the URL is optional.
    public init(
        url: URL, parameters: KeyValuePairs<String, String> = [:], body: Data? = nil,
        contentType: String = "application/json", headers: KeyValuePairs<String, String> = [:],
        method: String? = nil, timeout: TimeInterval = 60
    ) {
        self.url = url
        self.parameters = parameters.map { ($0.key, $0.value) }
        self.body = body
        self.contentType = contentType
        self.headers = headers.map { ($0.key, $0.value) }
        self.method = method
        self.timeout = timeout
    }

    /// A POST of a JSON body.
    public init(url: URL, parameters: KeyValuePairs<String, String> = [:], json: JSONValue) {
        self.init(url: url, parameters: parameters, body: Data(JSONWriter.string(json).utf8))
    }

    /// The URL with the parameters in its query.
    func resolvedURL() throws(FetchError) -> URL {
        guard !parameters.isEmpty else { return url }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw .connection(url: url, message: "the URL cannot take parameters")
        }
        components.queryItems =
            (components.queryItems ?? []) + parameters.map { URLQueryItem(name: $0.name, value: $0.value) }
        // '+' means a space in many servers' queries: spell it out.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let resolved = components.url else {
            throw .connection(url: url, message: "the parameters do not make a valid URL")
        }
        return resolved
    }

    func urlRequest(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = method ?? (body == nil ? "GET" : "POST")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        for header in headers { request.setValue(header.value, forHTTPHeaderField: header.name) }
        return request
    }
}

/// Why a fetch produced nothing to map, one case per stage.
public enum FetchError: Error, Sendable, CustomStringConvertible {
    /// The request could not be sent or answered (refused, timed out, not HTTP…).
    case connection(url: URL, message: String)
    /// The server answered with a status outside 2xx; `body` is the start of what it sent.
    case status(url: URL, code: Int, body: String)
    /// The answer is not JSON by its content type.
    case contentType(url: URL, found: String?)
    /// The body is not valid JSON.
    case invalidJSON(url: URL, message: String)
    /// The key path or closure found nothing to map.
    case selection(url: URL, message: String)
    /// The context is unknown, or does not build the type asked for.
    case mapping(MappingsError)

    /// One line saying what failed, with the URL.
    public var description: String {
        switch self {
        case .connection(let url, let message): "cannot fetch \(url.absoluteString): \(message)"
        case .status(let url, let code, let body):
            "\(url.absoluteString) answered HTTP \(code) \(HTTPURLResponse.localizedString(forStatusCode: code))"
                + (body.isEmpty ? "" : ": \(body)")
        case .contentType(let url, let found):
            "\(url.absoluteString) answered \(found.map { "\"\($0)\"" } ?? "no content type"), not JSON"
        case .invalidJSON(let url, let message): "the answer of \(url.absoluteString) is not valid JSON: \(message)"
        case .selection(let url, let message): "in the answer of \(url.absoluteString): \(message)"
        case .mapping(let error): error.description
        }
    }
}
