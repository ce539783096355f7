// The real-like shape's reshape with simdjson's On-Demand API (Debian's libsimdjson-dev), as its
// best user writes it: the NDJSON read with iterate_many, each status's 8 values found with
// find_field_unordered (the actual statuses of the twitter shape write `user` before
// `entities`, the generated ones after: a search in order fails one of them), nothing else
// parsed; the output as Benchmarks/contexts/real.mappings's $RealStatus writes it. The limit
// the benchmark measures against.
//
//     g++ -O3 -march=native -o real-simdjson Benchmarks/peers/real_simdjson.cpp -lsimdjson
//
// (-march=native: simdjson's On-Demand front end is compiled into the program, for the
// instruction set the compiler is told of; without it, it is the portable one.)
//     real-simdjson < real.ndjson > out.ndjson
#include <simdjson.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

using namespace simdjson;

// Appends `text` as a JSON string: quotes, backslashes and control characters escaped, the rest as it is.
static void append_string(std::string &out, std::string_view text) {
    out.push_back('"');
    for (unsigned char c : text) {
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back((char)c);
        } else if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            out += "\\u00";
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        } else {
            out.push_back((char)c);
        }
    }
    out.push_back('"');
}

static int month_of(std::string_view name) {
    static const char *months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    for (int i = 0; i < 12; i++)
        if (name == months[i]) return i + 1;
    return 0;
}

static long days_from_civil(long y, long m, long d) {
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

// `Wed Aug 29 17:12:58 +0000 2012` as ISO 8601 in UTC, `2012-08-29T17:12:58Z`.
static bool append_date(std::string &out, std::string_view date) {
    if (date.size() != 30) return false;
    int month = month_of(date.substr(4, 3));
    auto number = [&](size_t at, size_t count) {
        long value = 0;
        for (size_t i = 0; i < count; i++) value = value * 10 + (date[at + i] - '0');
        return value;
    };
    long day = number(8, 2), hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
    long zone = number(21, 2) * 60 + number(23, 2);
    if (date[20] == '-') zone = -zone;
    long year = number(26, 4);
    long seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - zone * 60;
    long days = seconds / 86400, rest = seconds % 86400;
    if (rest < 0) {
        rest += 86400;
        days--;
    }
    // civil_from_days
    days += 719468;
    long era = (days >= 0 ? days : days - 146096) / 146097;
    long doe = days - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long y = yoe + era * 400;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    long mp = (5 * doy + 2) / 153;
    long d = doy - (153 * mp + 2) / 5 + 1;
    long m = mp + (mp < 10 ? 3 : -9);
    y += m <= 2;
    char text[32];
    snprintf(text, sizeof text, "\"%04ld-%02ld-%02ldT%02ld:%02ld:%02ldZ\"", y, m, d, rest / 3600, rest / 60 % 60, rest % 60);
    out += text;
    return true;
}

static long long integer_of(std::string_view digits) {
    long long value = 0;
    for (char c : digits) value = value * 10 + (c - '0');
    return value;
}

int main() {
    // All of stdin in one buffer with simdjson's padding: sized from the file when it is one.
    struct stat status;
    size_t capacity = fstat(0, &status) == 0 && S_ISREG(status.st_mode) ? (size_t)status.st_size + 1 : 1 << 20;
    std::vector<char> input(capacity + SIMDJSON_PADDING);
    size_t length = 0;
    for (;;) {
        if (length == capacity) {
            capacity *= 2;
            input.resize(capacity + SIMDJSON_PADDING);
        }
        ssize_t count = read(0, input.data() + length, capacity - length);
        if (count < 0) return 2;
        if (count == 0) break;
        length += (size_t)count;
    }
    ondemand::parser parser;
    ondemand::document_stream statuses;
    if (parser.iterate_many(input.data(), length, 1 << 20).get(statuses)) return 2;
    std::string out;
    out.reserve(1 << 20);
    for (auto status : statuses) {
        ondemand::object record;
        if (status.get_object().get(record)) return 1;
        std::string_view created, id, text, user_id, screen_name;
        int64_t followers;
        out += "{\"id\":";
        if (record.find_field_unordered("created_at").get_string().get(created)) return 1;
        if (record.find_field_unordered("id_str").get_string().get(id)) return 1;
        out += std::to_string(integer_of(id));
        if (record.find_field_unordered("text").get_string().get(text)) return 1;
        out += ",\"text\":";
        append_string(out, text);
        out += ",\"createdAt\":";
        if (!append_date(out, created)) return 1;
        std::string tags = "[";
        ondemand::array hashtags;
        if (record.find_field_unordered("entities").find_field_unordered("hashtags").get_array().get(hashtags)) return 1;
        bool first = true;
        for (auto hashtag : hashtags) {
            std::string_view tag;
            if (hashtag.find_field_unordered("text").get_string().get(tag)) return 1;
            if (!first) tags.push_back(',');
            first = false;
            append_string(tags, tag);
        }
        tags.push_back(']');
        ondemand::object user;
        if (record.find_field_unordered("user").get_object().get(user)) return 1;
        if (user.find_field_unordered("id_str").get_string().get(user_id)) return 1;
        if (user.find_field_unordered("screen_name").get_string().get(screen_name)) return 1;
        if (user.find_field_unordered("followers_count").get_int64().get(followers)) return 1;
        out += ",\"userId\":" + std::to_string(integer_of(user_id)) + ",\"userName\":";
        append_string(out, screen_name);
        out += ",\"followers\":" + std::to_string(followers) + ",\"tags\":" + tags + ",\"lang\":";
        auto lang = record.find_field_unordered("lang");
        std::string_view language;
        if (lang.error() == NO_SUCH_FIELD || lang.is_null()) {
            out += "null";
        } else if (lang.get_string().get(language)) {
            return 1;
        } else {
            append_string(out, language);
        }
        out += "}\n";
        if (out.size() > (1 << 20)) {
            fwrite(out.data(), 1, out.size(), stdout);
            out.clear();
        }
    }
    fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
