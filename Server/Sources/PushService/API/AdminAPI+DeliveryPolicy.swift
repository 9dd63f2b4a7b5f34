import PushStore
import ServerSupport

/// An app's `deliveryPolicy` (issue 30, urgency): read from a create or update body, and shown
/// with the app (as set, and in effect).
extension AdminAPI {
    /// The fields a `deliveryPolicy` object takes.
    static let deliveryPolicyFields = ["timeSensitive", "levels", "relevance"]

    /// Reads `deliveryPolicy` from a create or update body: an object replaces the app's policy
    /// (kinds it does not name get their defaults), null restores the defaults, absent leaves
    /// it as it is.
    func applyDeliveryPolicy(_ body: JSONObject, to record: inout AppRecord) throws(APIError) {
        guard let raw = body.values["deliveryPolicy"] else { return }
        record.deliveryPolicy = raw is JSONNull ? .standard : try Self.deliveryPolicy(raw)
    }

    /// A `deliveryPolicy` object: `{"timeSensitive": bool?, "levels": {kind: level}?,
    /// "relevance": {kind: 0…1}?}`. Anything else is a 400 naming the field.
    static func deliveryPolicy(_ raw: Any) throws(APIError) -> DeliveryPolicy {
        let field = "deliveryPolicy"
        let object = try policyObject(raw, field: field)
        for key in object.keys.sorted() where !deliveryPolicyFields.contains(key) {
            throw .badRequest(
                "The \(field).\(shown(key)) field is not known: \(field) takes timeSensitive, levels and relevance.",
                field: "\(field).\(shown(key))", problem: "unknown field")
        }
        var policy = DeliveryPolicy()
        if let value = object["timeSensitive"], !(value is JSONNull) {
            guard let flag = value as? Bool else {
                throw .badRequest(
                    "The \(field).timeSensitive field must be true or false.", field: "\(field).timeSensitive", problem: "not a boolean")
            }
            policy.timeSensitive = flag
        }
        for (key, value) in try kinds(object["levels"], field: "\(field).levels") {
            let path = "\(field).levels.\(key.rawValue)"
            guard let text = value as? String, let level = DeliveryPolicy.Level(rawValue: text) else {
                let critical = (value as? String) == "critical"
                throw .badRequest(
                    critical
                        ? "The \(path) field cannot be critical: critical alerts need Apple's entitlement and are never sent; use passive, active or time-sensitive."
                        : "The \(path) field must be passive, active or time-sensitive.",
                    field: path, problem: critical ? "critical is not allowed" : "not a level")
            }
            policy.levels[key] = level
        }
        for (key, value) in try kinds(object["relevance"], field: "\(field).relevance") {
            let path = "\(field).relevance.\(key.rawValue)"
            let score: Double? =
                if value is Bool { nil } else if let whole = value as? Int { Double(whole) } else { value as? Double }
            guard let score, (0...1).contains(score) else {
                throw .badRequest("The \(path) field must be a number from 0 to 1.", field: path, problem: "not a number from 0 to 1")
            }
            policy.relevance[key] = score
        }
        return policy
    }

    /// `levels` or `relevance`: absent or null (none), else an object keyed by kind.
    private static func kinds(_ raw: Any?, field: String) throws(APIError) -> [(DeliveryPolicy.Kind, Any)] {
        guard let raw, !(raw is JSONNull) else { return [] }
        let object = try policyObject(raw, field: field)
        var result: [(DeliveryPolicy.Kind, Any)] = []
        for key in object.keys.sorted() {
            guard let kind = DeliveryPolicy.Kind(rawValue: key) else {
                throw .badRequest(
                    "The \(field).\(shown(key)) field is not a kind: the kinds are "
                        + DeliveryPolicy.Kind.allCases.map(\.rawValue).joined(separator: ", ") + ".",
                    field: "\(field).\(shown(key))", problem: "unknown kind")
            }
            result.append((kind, object[key] as Any))
        }
        return result
    }

    private static func policyObject(_ raw: Any, field: String) throws(APIError) -> [String: Any] {
        guard let object = raw as? [String: Any] else {
            throw .badRequest("The \(field) field must be an object.", field: field, problem: "not an object")
        }
        return object
    }

    /// A key of the request as an error names it: at most 64 characters.
    static func shown(_ key: String) -> String {
        key.count <= 64 ? key : String(key.prefix(64)) + "…"
    }

    /// The app's `deliveryPolicy` as set (only the kinds it named) and `effectiveDeliveryPolicy`,
    /// every kind's level and relevance as its pushes get them (a `time-sensitive` level without
    /// the capability shows as `active`).
    static func deliveryPolicyJSON(_ policy: DeliveryPolicy) -> (set: [String: Any], effective: [String: Any]) {
        var levels: [String: Any] = [:]
        var relevance: [String: Any] = [:]
        for kind in DeliveryPolicy.Kind.allCases {
            let chosen = Urgency.choose(kind, policy)
            levels[kind.rawValue] = chosen.level.rawValue
            relevance[kind.rawValue] = chosen.relevance ?? policy.relevanceScore(kind)
        }
        return (policy.json, ["timeSensitive": policy.timeSensitive, "levels": levels, "relevance": relevance])
    }
}
