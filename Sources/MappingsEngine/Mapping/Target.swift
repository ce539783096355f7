import MappingsCompiler
import MappingsJSON
import MappingsModel

/// Reading and writing a target property path in a model object or a JSON object.
enum Target {
    /// The value at `steps`, or `nil` when a step is missing.
    static func value(at steps: ArraySlice<TargetPath.Step>, in container: Value) -> Value? {
        guard let step = steps.first else { return container }
        let child: Value?
        switch container {
        case .object(let object): child = step.slot.map { object.slots[$0] }
        case .dictionary(let dictionary): child = dictionary[step.name]
        default: child = nil
        }
        guard let child else { return nil }
        return value(at: steps.dropFirst(), in: child)
    }

    /// Sets the value at `steps`, creating intermediate objects where they are unset.
    static func assign(
        _ newValue: Value, at steps: ArraySlice<TargetPath.Step>, in container: inout Value, models: [String: Model]
    ) {
        guard let step = steps.first else {
            container = newValue
            return
        }
        // The common case, a property of the object itself.
        if steps.count == 1, let slot = step.slot, case .object(var object) = container {
            container = .null
            object.slots[slot] = newValue
            container = .object(object)
            return
        }
        switch container {
        case .object(var object):
            guard let slot = step.slot else { return }
            // Let go of the container's reference so that the slots are changed in place, not copied.
            container = .null
            var child = object.slots[slot]
            object.slots[slot] = .null
            if steps.count > 1, case .null = child,
                case .model(let name) = object.model.properties[slot].type.unwrapped,
                let model = models[name]
            {
                child = .object(ModelObject(model: model))
            }
            assign(newValue, at: steps.dropFirst(), in: &child, models: models)
            object.slots[slot] = child
            container = .object(object)
        case .dictionary(var dictionary):
            container = .null
            var child = dictionary[step.name] ?? .dictionary(ValueDictionary())
            if steps.count > 1, case .json(.object(let object)) = child {
                child = .dictionary(ValueDictionary(object.members.map { ($0.key, .json($0.value)) }))
            } else if steps.count > 1, !child.isContainer {
                child = .dictionary(ValueDictionary())
            }
            assign(newValue, at: steps.dropFirst(), in: &child, models: models)
            dictionary[step.name] = child
            container = .dictionary(dictionary)
        default:
            var fresh = Value.dictionary(ValueDictionary())
            assign(newValue, at: steps, in: &fresh, models: models)
            container = fresh
        }
    }
}

extension Value {
    var isContainer: Bool {
        switch self {
        case .object, .dictionary: true
        default: false
        }
    }
}
