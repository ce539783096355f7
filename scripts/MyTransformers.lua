-- The transformers of the AppCoreKit Twitter walkthrough, in Lua.
-- Each function is called as f(value, userData) and returns the new value, or nil and a message.
-- The engine then converts the result to the property's type (here the model Coordinate2D).

local MyTransformers = {}

local function isNumber(v)
    return type(v) == "number"
end

-- { "long": …, "lat": … } → { latitude = …, longitude = … }; the user data names the keys:
-- "@transformUserData": { "longitude": "long", "latitude": "lat" }
function MyTransformers.coordinate2DFromDictionary(dictionary, userData)
    if json.type(dictionary) ~= "object" then
        return nil, "expected an object, got " .. json.type(dictionary)
    end
    if type(userData) ~= "table" or type(userData.longitude) ~= "string" or type(userData.latitude) ~= "string" then
        return nil, 'the user data must name "longitude" and "latitude" keys'
    end
    local longitude = dictionary[userData.longitude]
    local latitude = dictionary[userData.latitude]
    if not (isNumber(longitude) and isNumber(latitude)) then
        return nil, string.format('expected numbers under "%s" and "%s"', userData.longitude, userData.latitude)
    end
    return { latitude = latitude, longitude = longitude }
end

-- [longitude, latitude] (GeoJSON order, as the Twitter API sends it) → { latitude = …, longitude = … }
function MyTransformers.coordinate2DFromFloatArray(array)
    if json.type(array) ~= "array" or #array ~= 2 or not (isNumber(array[1]) and isNumber(array[2])) then
        return nil, "expected an array of two numbers"
    end
    return { latitude = array[2], longitude = array[1] }
end

-- The reverse of coordinate2DFromDictionary, for serializing a tweet back to JSON
-- ("@reverseTransformSelector"): { latitude = …, longitude = … } → { "long": …, "lat": … }.
function MyTransformers.dictionaryFromCoordinate2D(coordinate, userData)
    if json.type(coordinate) ~= "object" or not (isNumber(coordinate.latitude) and isNumber(coordinate.longitude)) then
        return nil, "expected an object with numbers under latitude and longitude"
    end
    if type(userData) ~= "table" or type(userData.longitude) ~= "string" or type(userData.latitude) ~= "string" then
        return nil, 'the user data must name "longitude" and "latitude" keys'
    end
    return { [userData.longitude] = coordinate.longitude, [userData.latitude] = coordinate.latitude }
end

-- The reverse of coordinate2DFromFloatArray: { latitude = …, longitude = … } → [longitude, latitude].
function MyTransformers.floatArrayFromCoordinate2D(coordinate)
    if json.type(coordinate) ~= "object" or not (isNumber(coordinate.latitude) and isNumber(coordinate.longitude)) then
        return nil, "expected an object with numbers under latitude and longitude"
    end
    return { coordinate.longitude, coordinate.latitude }
end

return MyTransformers
