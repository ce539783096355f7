import Mappings

/// The Swift transformers the AppCoreKit walkthrough names, registered by the tool until
/// transformers can be written in Lua.
enum WalkthroughTransformers {
    static var registry: TransformerRegistry {
        var registry = TransformerRegistry()
        // `{ "long": …, "lat": … }` (key names from the user data) → `{ "latitude": …, "longitude": … }`.
        registry.register(className: "MyTransformers", selector: "coordinate2DFromDictionary:userData:error:") {
            value, userData in
            guard case .object(let object) = value else { throw TransformerFailure("expected an object") }
            guard case .object(let keys)? = userData, case .string(let longitudeKey)? = keys["longitude"],
                case .string(let latitudeKey)? = keys["latitude"]
            else {
                throw TransformerFailure("the user data must name \"longitude\" and \"latitude\" keys")
            }
            guard let longitude = object[longitudeKey], let latitude = object[latitudeKey],
                longitude.isNumber, latitude.isNumber
            else {
                throw TransformerFailure("expected numbers under \"\(longitudeKey)\" and \"\(latitudeKey)\"")
            }
            return .object(JSONObject([("latitude", latitude), ("longitude", longitude)]))
        }
        // `[longitude, latitude]` (GeoJSON order, as the Twitter API sends) → `{ "latitude": …, "longitude": … }`.
        registry.register(className: "MyTransformers", selector: "coordinate2DFromFloatArray:error:") { value, _ in
            guard case .array(let pair) = value, pair.count == 2, pair.allSatisfy(\.isNumber) else {
                throw TransformerFailure("expected an array of two numbers")
            }
            return .object(JSONObject([("latitude", pair[1]), ("longitude", pair[0])]))
        }
        return registry
    }
}

extension JSONValue {
    fileprivate var isNumber: Bool {
        switch self {
        case .integer, .double: true
        default: false
        }
    }
}
