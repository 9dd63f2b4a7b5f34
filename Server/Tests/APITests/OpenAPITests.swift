import Foundation
import PushService
import PushTestSupport
import Testing

/// `Server/openapi.json` against the router: every route documented, every documented
/// operation routed, the document served as it is in the repository, and every error code
/// the service can answer listed in the document's `Error` schema.
@Suite struct OpenAPITests {
    /// `<repository>/Server`.
    static let serverDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Documented operations the API router does not serve itself: `push-server` registers
    /// them through `ExtraEndpoints` when the delivery engine runs (`--sender delivery`);
    /// DeliveryTests/HealthTests checks them.
    static let documentedOutsideTheRouter: Set<String> = ["GET /healthz", "GET /metrics"]

    /// Routes that are deliberately not in the API document: none yet. Non-API pages (for
    /// example a `/dashboard` HTML UI) go here, each with a comment saying why.
    static let undocumentedRoutes: Set<String> = []

    static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    static func document() throws -> [String: Any] {
        let data = try Data(contentsOf: serverDirectory.appendingPathComponent("openapi.json"))
        return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// `METHOD /path` for every operation of the document.
    static func documentedOperations(_ document: [String: Any]) -> [String] {
        let paths = document["paths"] as? [String: [String: Any]] ?? [:]
        return paths.flatMap { path, item in
            item.keys.filter { methods.contains($0) }.map { "\($0.uppercased()) \(path)" }
        }
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsRouted() async throws {
        let harness = try await Harness.start()
        let routes = harness.app.routes
        #expect(routes.count == Set(routes).count, "a route is registered twice")
        let documented = try Self.documentedOperations(Self.document())
        #expect(documented.count > 30)
        let missing = Set(routes).subtracting(documented).subtracting(Self.undocumentedRoutes)
        #expect(missing.isEmpty, "routes missing from Server/openapi.json: \(missing.sorted())")
        let unrouted = Set(documented).subtracting(routes).subtracting(Self.documentedOutsideTheRouter)
        #expect(unrouted.isEmpty, "documented in Server/openapi.json but not routed: \(unrouted.sorted())")
        #expect(Self.documentedOutsideTheRouter.isSubset(of: documented))
    }

    @Test func everyOperationDeclaresSecurityAnAnswerAndItsPathParameters() throws {
        let document = try Self.document()
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for (path, item) in paths {
            let shared = (item["parameters"] as? [[String: Any]]) ?? []
            for (method, value) in item where Self.methods.contains(method) {
                let operation = try #require(value as? [String: Any])
                let name = "\(method.uppercased()) \(path)"
                #expect(operation["security"] is [Any], "\(name) declares no security")
                #expect(operation["operationId"] is String, "\(name) has no operationId")
                let responses = (operation["responses"] as? [String: Any]) ?? [:]
                #expect(responses["200"] != nil, "\(name) documents no 200 answer")
                let parameters = shared + ((operation["parameters"] as? [[String: Any]]) ?? [])
                let declared = Set(
                    parameters.compactMap { parameter -> String? in
                        if let name = parameter["name"] as? String { return name }
                        // `#/components/parameters/<key>`: resolve to its name.
                        guard let reference = parameter["$ref"] as? String else { return nil }
                        let key = String(reference.split(separator: "/").last ?? "")
                        let components = document["components"] as? [String: Any]
                        return ((components?["parameters"] as? [String: Any])?[key] as? [String: Any])?["name"] as? String
                    })
                let inPath = Set(
                    path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
                #expect(inPath.isSubset(of: declared), "\(name) does not declare its path parameters \(inPath)")
            }
        }
    }

    /// The Error schema's `code` enum is the API's closed set of error codes (`APIError.Code`),
    /// and no source of the service spells a code anywhere else: every error is declared once,
    /// in `APIError.swift`.
    @Test func theDocumentedErrorCodesAreTheAPIsCodes() throws {
        let document = try Self.document()
        let schemas = (document["components"] as? [String: Any])?["schemas"] as? [String: Any]
        let error = ((schemas?["Error"] as? [String: Any])?["properties"] as? [String: Any])?["error"] as? [String: Any]
        let code = (error?["properties"] as? [String: Any])?["code"] as? [String: Any]
        let documented = Set(try #require(code?["enum"] as? [String]))
        let declared = Set(APIError.Code.allCases.map(\.rawValue))
        #expect(declared.count == APIError.Code.allCases.count)
        #expect(
            documented == declared,
            "only in Server/openapi.json: \(documented.subtracting(declared).sorted()); only in APIError.Code: \(declared.subtracting(documented).sorted())"
        )

        let sources = Self.serverDirectory.appendingPathComponent("Sources/PushService")
        let files = try #require(FileManager.default.enumerator(atPath: sources.path)).compactMap { $0 as? String }
        let pattern = try NSRegularExpression(pattern: #""((?:AUTH_)?ERR_[A-Z_]+)""#)
        var spelt: [String] = []
        for file in files
        where file.hasSuffix(".swift")
            && !["APIError.swift", "OpenAPIDocument.swift"].contains(file.split(separator: "/").last.map(String.init))
        {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            spelt += pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
                "\(file): \((text as NSString).substring(with: $0.range))"
            }
        }
        #expect(spelt.isEmpty, "error codes spelt outside APIError.swift: \(spelt)")
    }

    /// Where the document names an error code in an answer (`"409": … ERR_PROVIDER_ALREADY_EXISTS`),
    /// the answer's status is the code's (`APIError.Code.status`).
    @Test func eachDocumentedAnswerNamesCodesOfItsStatus() throws {
        let document = try Self.document()
        let components = (document["components"] as? [String: Any])?["responses"] as? [String: [String: Any]] ?? [:]
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let codes = Dictionary(uniqueKeysWithValues: APIError.Code.allCases.map { ($0.rawValue, $0) })
        var checked = 0
        for (path, item) in paths {
            for (method, value) in item where Self.methods.contains(method) {
                let responses = ((value as? [String: Any])?["responses"] as? [String: [String: Any]]) ?? [:]
                for (status, response) in responses {
                    let resolved =
                        (response["$ref"] as? String).flatMap { components[String($0.split(separator: "/").last ?? "")] } ?? response
                    let description = resolved["description"] as? String ?? ""
                    for match in description.matches(of: /`((?:AUTH_)?ERR_[A-Z_]+)`/) {
                        let name = String(match.output.1)
                        let code = try #require(codes[name], "\(method.uppercased()) \(path) \(status) names \(name), not a code")
                        #expect(
                            String(code.status) == status,
                            "\(method.uppercased()) \(path) answers \(name) with \(status), not \(code.status)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 50)
    }

    @Test func theServiceServesTheDocumentOfTheRepository() async throws {
        let harness = try await Harness.start()
        let file = try Data(contentsOf: Self.serverDirectory.appendingPathComponent("openapi.json"))
        let response = try await harness.request("GET", "/openapi.json")
        #expect(response.status == 200)
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true)
        #expect(response.body == file, "Sources/PushService/API/OpenAPIDocument.swift is stale: run Server/Scripts/embed-openapi.sh")
    }

    /// `/providers/apns` is the APNs route for every method (a concrete path wins over
    /// `/providers/{providerId}`, as in OpenAPI), so no provider may be called `apns` or `fcm`.
    @Test func aConcretePathWinsOverATemplatedOne() async throws {
        let harness = try await Harness.start()
        try await harness.makeApp()
        let delete = try await harness.admin("DELETE", "/notifications/push/v1/providers/apns", appId: "app1")
        #expect(delete.status == 405)
        #expect(delete.headers["allow"] == "POST, PUT")
        for kind in ["apns", "fcm"] {
            let reserved = try await harness.admin(
                "POST", "/notifications/push/v1/providers/apns", appId: "app1", Harness.apnsProvider(kind))
            #expect(reserved.status == 400)
            #expect(
                reserved.json["error"].flatMap { ($0 as? [String: Any])?["details"] as? [String: String] } == ["providerId": "reserved"])
        }
        let other = try await harness.admin("DELETE", "/notifications/push/v1/providers/apns-1", appId: "app1")
        #expect(other.status == 200)
    }

    @Test func aKnownPathWithAnotherMethodNamesTheAllowedMethods() async throws {
        let harness = try await Harness.start()
        let response = try await harness.request("PATCH", "/apps/x")
        #expect(response.status == 405)
        #expect(response.errorCode == "ERR_METHOD_NOT_ALLOWED")
        #expect(response.headers["allow"] == "GET, PUT, DELETE")
        let unknown = try await harness.request("GET", "/no/such/path")
        #expect(unknown.status == 404)
        #expect(unknown.headers["allow"] == nil)
    }
}
