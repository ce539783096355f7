// mappings._native: the Python module over the Swift library's C functions (MappingsPython's
// NativeInterface.swift). Written against Python's limited API (3.9), so that one wheel serves
// every CPython from 3.9 on. What it does with the GIL held is build Python objects from the
// tagged values the library writes (no JSON is read here); every call into the library is
// made with the GIL released, so that other threads run while records map. A call that may
// map for long hands back every slice (LineSession.slice, 50 ms) or waits that long at most, and
// the module looks for signals between (PyErr_CheckSignals): Ctrl-C is a KeyboardInterrupt
// within a slice and the record then mapping, and the session stops (its lanes end their records).
#define Py_LIMITED_API 0x03090000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <structmember.h>

// What the Swift library exports.
typedef void (*mappings_log_function)(const char *line, int64_t length);
void *mappings_py_load(const char *contexts, const char *scripts, const char *options, mappings_log_function log,
                       char **error);
char *mappings_py_identifiers(void *catalog);
char *mappings_py_warnings(void *catalog);
void *mappings_py_context(void *catalog, const char *identifier, int32_t arrow, char **error);
void mappings_py_release(void *handle);
void mappings_py_free(void *pointer);
uint8_t *mappings_py_map(void *context, const uint8_t *bytes, int64_t count, int64_t *length);
void *mappings_py_lines_open(void *context, int32_t workers);
int64_t mappings_py_lines_submit(void *session, const uint8_t *bytes, int64_t count);
int64_t mappings_py_lines_submit_parts(void *session, const uint8_t **parts, const int64_t *lengths, int64_t count,
                                       int64_t *mapped);
int32_t mappings_py_lines_pending(void *session);
int32_t mappings_py_lines_wait(void *session, int32_t milliseconds);
void mappings_py_lines_stop(void *session);
char *mappings_py_limits(void);
const uint8_t *mappings_py_lines_take(void *session, int64_t *length);
int64_t mappings_py_arrow_rows(void *session, int64_t *bytes);
void mappings_py_arrow_export(void *session, void *array, void *schema);
void mappings_py_arrow_schema(void *context, void *schema);
char *mappings_py_arrow_schema_text(void *context);
uint8_t *mappings_py_tests(void *catalog, const char *identifier, int64_t *length);

// The C Data Interface's structures, as big as the specification lays them out (only their
// size and release callback are used here).
struct ArrowSchema {
    const char *format, *name, *metadata;
    int64_t flags, n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};
struct ArrowArray {
    int64_t length, null_count, offset, n_buffers, n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

enum {
    TAG_NULL = 0, TAG_TRUE = 1, TAG_FALSE = 2, TAG_INTEGER = 3, TAG_BIG = 4, TAG_DOUBLE = 5, TAG_STRING = 6,
    TAG_DECIMAL = 7, TAG_DATE = 8, TAG_OBJECT = 9, TAG_ARRAY = 10, TAG_ABSENT = 0xFF
};

// The prefix of CPython's datetime C API (its capsule, datetime.datetime_CAPI), which has kept
// this layout since 3.7, new members only ever appended: a datetime made in one C call, where
// calling the class would parse a tuple of arguments. NULL when the capsule is missing, and the
// class is called instead.
typedef struct {
    PyTypeObject *DateType, *DateTimeType, *TimeType, *DeltaType, *TZInfoType;
    PyObject *TimeZone_UTC;
    PyObject *(*Date_FromDate)(int, int, int, PyTypeObject *);
    PyObject *(*DateTime_FromDateAndTime)(int, int, int, int, int, int, int, PyObject *, PyTypeObject *);
} datetime_api;

typedef struct {
    PyObject *decimal;   // decimal.Decimal
    PyObject *datetime;  // datetime.datetime
    PyObject *utc;       // datetime.timezone.utc
    PyObject *load_error;
    PyObject *log;       // the function log lines go to (mappings._log), or NULL
    PyObject *result_type, *catalog_type, *context_type, *session_type;
    PyObject *statuses[5];  // 'clean', 'warnings', 'errors', 'invalid', 'filtered'
    datetime_api *dates;
    // CPython's dict made with room for a count of members (exported by every CPython this
    // module runs on, though outside the limited API): found when the module loads, so that an
    // object's dict is not grown as its members go in; NULL where it is missing (PyDict_New).
    PyObject *(*new_presized)(Py_ssize_t members);
} module_state;

static module_state state;

// ---- Keys: a small cache of the str objects of object keys, which repeat record after record.

#define KEY_SLOTS 2048
#define KEY_MAX 48
typedef struct {
    PyObject *text;
    uint32_t length;
    char bytes[KEY_MAX];
} key_slot;
static key_slot keys[KEY_SLOTS];

static PyObject *key_object(const char *bytes, uint32_t length) {
    if (length > KEY_MAX) return PyUnicode_DecodeUTF8(bytes, length, "strict");
    uint32_t hash = 2166136261u;
    for (uint32_t index = 0; index < length; index++) hash = (hash ^ (uint8_t)bytes[index]) * 16777619u;
    key_slot *slot = &keys[hash % KEY_SLOTS];
    if (slot->text != NULL && slot->length == length && memcmp(slot->bytes, bytes, length) == 0) {
        Py_INCREF(slot->text);
        return slot->text;
    }
    PyObject *text = PyUnicode_DecodeUTF8(bytes, length, "strict");
    if (text == NULL) return NULL;
    Py_XDECREF(slot->text);
    Py_INCREF(text);
    slot->text = text;
    slot->length = length;
    memcpy(slot->bytes, bytes, length);
    return text;
}

// ---- Tagged values into Python objects.

typedef struct {
    const uint8_t *bytes;
    int64_t length, position;
} tag_reader;

static int need(tag_reader *reader, int64_t count) {
    if (reader->position + count > reader->length) {
        PyErr_SetString(PyExc_RuntimeError, "mappings: a result ends early (a bug: please report it)");
        return 0;
    }
    return 1;
}

static uint64_t word(tag_reader *reader) {
    uint64_t value;
    memcpy(&value, reader->bytes + reader->position, 8);
    reader->position += 8;
    return value;
}

static uint32_t count32(tag_reader *reader) {
    uint32_t value;
    memcpy(&value, reader->bytes + reader->position, 4);
    reader->position += 4;
    return value;
}

// Days since 1970-01-01 into a civil date (the proleptic Gregorian calendar).
static void civil(int64_t days, int *year, int *month, int *day) {
    days += 719468;
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    int64_t of_era = days - era * 146097;
    int64_t year_of_era = (of_era - of_era / 1460 + of_era / 36524 - of_era / 146096) / 365;
    int64_t of_year = of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    int64_t shifted = (5 * of_year + 2) / 153;
    *day = (int)(of_year - (153 * shifted + 2) / 5 + 1);
    *month = (int)(shifted < 10 ? shifted + 3 : shifted - 9);
    *year = (int)(year_of_era + era * 400 + (*month <= 2));
}

static PyObject *date_object(int64_t micros) {
    int64_t seconds = micros / 1000000, fraction = micros % 1000000;
    if (fraction < 0) {
        fraction += 1000000;
        seconds -= 1;
    }
    int64_t days = seconds / 86400, in_day = seconds % 86400;
    if (in_day < 0) {
        in_day += 86400;
        days -= 1;
    }
    int year, month, day;
    civil(days, &year, &month, &day);
    if (state.dates != NULL) {
        return state.dates->DateTime_FromDateAndTime(year, month, day, (int)(in_day / 3600), (int)(in_day / 60 % 60),
                                                     (int)(in_day % 60), (int)fraction, state.utc,
                                                     state.dates->DateTimeType);
    }
    return PyObject_CallFunction(state.datetime, "iiiiiiiO", year, month, day, (int)(in_day / 3600),
                                 (int)(in_day / 60 % 60), (int)(in_day % 60), (int)fraction, state.utc);
}

static PyObject *value_object(tag_reader *reader) {
    if (!need(reader, 1)) return NULL;
    uint8_t tag = reader->bytes[reader->position++];
    switch (tag) {
    case TAG_NULL:
    case TAG_ABSENT:
        Py_RETURN_NONE;
    case TAG_TRUE:
        Py_RETURN_TRUE;
    case TAG_FALSE:
        Py_RETURN_FALSE;
    case TAG_INTEGER:
        if (!need(reader, 8)) return NULL;
        return PyLong_FromLongLong((long long)word(reader));
    case TAG_DOUBLE: {
        if (!need(reader, 8)) return NULL;
        uint64_t bits = word(reader);
        double value;
        memcpy(&value, &bits, 8);
        return PyFloat_FromDouble(value);
    }
    case TAG_DATE:
        if (!need(reader, 8)) return NULL;
        return date_object((int64_t)word(reader));
    case TAG_STRING:
    case TAG_BIG:
    case TAG_DECIMAL: {
        if (!need(reader, 4)) return NULL;
        uint32_t length = count32(reader);
        if (!need(reader, length)) return NULL;
        const char *text = (const char *)reader->bytes + reader->position;
        reader->position += length;
        if (tag == TAG_STRING) return PyUnicode_DecodeUTF8(text, length, "strict");
        // Digits: copied with a terminator for the parsers that want one.
        char small[64];
        char *digits = length < sizeof small ? small : malloc(length + 1);
        if (digits == NULL) return PyErr_NoMemory();
        memcpy(digits, text, length);
        digits[length] = 0;
        PyObject *result = NULL;
        if (tag == TAG_BIG) {
            result = PyLong_FromString(digits, NULL, 10);
            if (result == NULL && PyErr_ExceptionMatches(PyExc_ValueError)) {
                // Past the digits str-to-int takes (Python's 4300 by default): through a Decimal,
                // which has no such limit, to the same int.
                PyErr_Clear();
                PyObject *exact = PyObject_CallFunction(state.decimal, "s", digits);
                if (exact != NULL) {
                    result = PyNumber_Long(exact);
                    Py_DECREF(exact);
                }
            }
        } else {
            result = PyObject_CallFunction(state.decimal, "s", digits);
            if (result == NULL && PyErr_ExceptionMatches(PyExc_ArithmeticError)) {
                // An exponent past what a Decimal holds (beyond ±10^18): the number's text,
                // every digit, rather than a value that says something else.
                PyErr_Clear();
                result = PyUnicode_FromStringAndSize(digits, length);
            }
        }
        if (digits != small) free(digits);
        return result;
    }
    case TAG_OBJECT: {
        if (!need(reader, 4)) return NULL;
        uint32_t members = count32(reader);
        PyObject *object = state.new_presized != NULL && members > 5 ? state.new_presized((Py_ssize_t)members)
                                                                      : PyDict_New();
        if (object == NULL) return NULL;
        for (uint32_t index = 0; index < members; index++) {
            if (!need(reader, 4)) goto object_failed;
            uint32_t length = count32(reader);
            if (!need(reader, length)) goto object_failed;
            PyObject *key = key_object((const char *)reader->bytes + reader->position, length);
            reader->position += length;
            if (key == NULL) goto object_failed;
            PyObject *member = value_object(reader);
            if (member == NULL) {
                Py_DECREF(key);
                goto object_failed;
            }
            int failed = PyDict_SetItem(object, key, member);
            Py_DECREF(key);
            Py_DECREF(member);
            if (failed) goto object_failed;
        }
        return object;
    object_failed:
        Py_DECREF(object);
        return NULL;
    }
    case TAG_ARRAY: {
        if (!need(reader, 4)) return NULL;
        uint32_t elements = count32(reader);
        PyObject *array = PyList_New(elements);
        if (array == NULL) return NULL;
        for (uint32_t index = 0; index < elements; index++) {
            PyObject *element = value_object(reader);
            if (element == NULL) {
                Py_DECREF(array);
                return NULL;
            }
            PyList_SetItem(array, index, element);
        }
        return array;
    }
    default:
        PyErr_Format(PyExc_RuntimeError, "mappings: an unknown value tag %d (a bug: please report it)", tag);
        return NULL;
    }
}

// ---- Result: one record's outcome.

// A Result holds what every record has (its value, status, ok) as objects, and what is seldom
// read as C values made into objects on first reading: its line, and its issues when it has
// none (most records) — a list a record would allocate, and the collector visit, for nothing.
typedef struct {
    PyObject_HEAD
    PyObject *value;
    PyObject *issues;  // NULL: none yet made (the record has none)
    PyObject *input;
    PyObject *status;
    uint32_t line;
    char ok;
} result_object;

// The module's types are made by the module only: one made from Python would hold no handle
// (or no values) for the library to read.
static PyObject *refuse_new(PyTypeObject *type, PyObject *args, PyObject *keywords) {
    PyErr_SetString(PyExc_TypeError,
                    "mappings: catalogs come from mappings.load and results from its calls, not from their types");
    return NULL;
}

static void result_dealloc(PyObject *self) {
    result_object *result = (result_object *)self;
    Py_XDECREF(result->value);
    Py_XDECREF(result->issues);
    Py_XDECREF(result->input);
    Py_XDECREF(result->status);
    PyTypeObject *type = Py_TYPE(self);
    freefunc release = (freefunc)PyType_GetSlot(type, Py_tp_free);
    release(self);
    Py_DECREF(type);
}

static PyObject *result_issues(PyObject *self, void *unused) {
    result_object *result = (result_object *)self;
    if (result->issues == NULL) {
        result->issues = PyList_New(0);
        if (result->issues == NULL) return NULL;
    }
    Py_INCREF(result->issues);
    return result->issues;
}

static PyObject *result_line(PyObject *self, void *unused) {
    return PyLong_FromUnsignedLong(((result_object *)self)->line);
}

static PyObject *result_repr(PyObject *self) {
    result_object *result = (result_object *)self;
    return PyUnicode_FromFormat("Result(line=%lu, ok=%s, status=%R, issues=%zd)", (unsigned long)result->line,
                                result->ok ? "True" : "False", result->status,
                                result->issues != NULL ? PyList_Size(result->issues) : (Py_ssize_t)0);
}

static PyMemberDef result_members[] = {
    {"value", T_OBJECT, offsetof(result_object, value), READONLY,
     "The mapped value: a dict (a list for an array payload); None when the record has none."},
    {"input", T_OBJECT, offsetof(result_object, input), READONLY,
     "The record's input line (bytes) when it has an error, else None."},
    {"status", T_OBJECT, offsetof(result_object, status), READONLY,
     "'clean', 'warnings', 'errors', 'invalid' (not JSON) or 'filtered'."},
    {"ok", T_BOOL, offsetof(result_object, ok), READONLY, "Whether the record has no error issue."},
    {NULL},
};

static PyGetSetDef result_getset[] = {
    {"issues", result_issues, NULL,
     "The issues, each a dict of the project's issue shape (kind, path, property, rule, provenance, value, "
     "message, severity).",
     NULL},
    {"line", result_line, NULL, "The record's line in its input, from 1.", NULL},
    {NULL},
};

static PyType_Slot result_slots[] = {
    {Py_tp_dealloc, (void *)result_dealloc},
    {Py_tp_repr, (void *)result_repr},
    {Py_tp_new, (void *)refuse_new},
    {Py_tp_members, result_members},
    {Py_tp_getset, result_getset},
    {Py_tp_doc, "One record's result: value, issues, ok, line, status, input."},
    {0, NULL},
};

static PyType_Spec result_spec = {"mappings.Result", sizeof(result_object), 0, Py_TPFLAGS_DEFAULT, result_slots};

// Reads one result (ResultWriter's form) into a Result.
static PyObject *result_from(tag_reader *reader) {
    if (!need(reader, 5)) return NULL;
    uint32_t line = count32(reader);
    uint8_t status = reader->bytes[reader->position++];
    result_object *result = PyObject_New(result_object, (PyTypeObject *)state.result_type);
    if (result == NULL) return NULL;
    result->value = result->issues = result->input = NULL;
    result->line = line;
    result->ok = status <= 1 || status == 4;
    result->status = state.statuses[status < 5 ? status : 4];
    Py_INCREF(result->status);
    result->value = value_object(reader);
    if (result->value == NULL) goto failed;
    // No issue: an empty array's tag and count, passed over; the list is made when read.
    if (reader->position + 5 <= reader->length && reader->bytes[reader->position] == TAG_ARRAY &&
        memcmp(reader->bytes + reader->position + 1, "\0\0\0\0", 4) == 0) {
        reader->position += 5;
    } else {
        result->issues = value_object(reader);
        if (result->issues == NULL) goto failed;
    }
    if (status == 2 || status == 3) {
        if (!need(reader, 4)) goto failed;
        uint32_t length = count32(reader);
        if (!need(reader, length)) goto failed;
        result->input = PyBytes_FromStringAndSize((const char *)reader->bytes + reader->position, length);
        reader->position += length;
        if (result->input == NULL) goto failed;
    } else {
        Py_INCREF(Py_None);
        result->input = Py_None;
    }
    return (PyObject *)result;
failed:
    Py_DECREF(result);
    return NULL;
}

// A list of the results a buffer holds.
static PyObject *results_from(const uint8_t *bytes, int64_t length) {
    PyObject *list = PyList_New(0);
    if (list == NULL) return NULL;
    tag_reader reader = {bytes, length, 0};
    while (reader.position < reader.length) {
        PyObject *result = result_from(&reader);
        if (result == NULL || PyList_Append(list, result) < 0) {
            Py_XDECREF(result);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(result);
    }
    return list;
}

// ---- Handles: Catalog, Context, Session.

typedef struct {
    PyObject_HEAD
    void *handle;
} handle_object;

static void handle_dealloc(PyObject *self) {
    handle_object *object = (handle_object *)self;
    if (object->handle != NULL) {
        void *handle = object->handle;
        object->handle = NULL;
        Py_BEGIN_ALLOW_THREADS mappings_py_release(handle);
        Py_END_ALLOW_THREADS
    }
    PyTypeObject *type = Py_TYPE(self);
    freefunc release = (freefunc)PyType_GetSlot(type, Py_tp_free);
    release(self);
    Py_DECREF(type);
}

static PyObject *wrap(PyObject *type, void *handle) {
    handle_object *object = PyObject_New(handle_object, (PyTypeObject *)type);
    if (object == NULL) {
        mappings_py_release(handle);
        return NULL;
    }
    object->handle = handle;
    return (PyObject *)object;
}

static PyObject *raise_load_error(char *error) {
    PyObject *text = PyUnicode_DecodeUTF8(error, (Py_ssize_t)strlen(error), "replace");
    mappings_py_free(error);
    if (text == NULL) return NULL;
    PyObject *exception = PyObject_CallFunctionObjArgs(state.load_error, text, NULL);
    if (exception != NULL) {
        PyObject_SetAttrString(exception, "diagnostics", text);
        PyErr_SetObject(state.load_error, exception);
        Py_DECREF(exception);
    }
    Py_DECREF(text);
    return NULL;
}

// Catalog.context(identifier, arrow) -> Context
static PyObject *catalog_context(PyObject *self, PyObject *args) {
    const char *identifier;
    int arrow = 0;
    if (!PyArg_ParseTuple(args, "s|p", &identifier, &arrow)) return NULL;
    char *error = NULL;
    void *context;
    void *catalog = ((handle_object *)self)->handle;
    Py_BEGIN_ALLOW_THREADS context = mappings_py_context(catalog, identifier, arrow, &error);
    Py_END_ALLOW_THREADS
    if (context == NULL) return raise_load_error(error);
    return wrap(state.context_type, context);
}

static PyObject *catalog_identifiers(PyObject *self, PyObject *unused) {
    char *text = mappings_py_identifiers(((handle_object *)self)->handle);
    PyObject *result = PyUnicode_FromString(text);
    mappings_py_free(text);
    return result;
}

// Catalog.tests(identifier or None) -> list of dicts
static PyObject *catalog_tests(PyObject *self, PyObject *args) {
    const char *identifier = NULL;
    if (!PyArg_ParseTuple(args, "|z", &identifier)) return NULL;
    int64_t length = 0;
    uint8_t *results;
    void *catalog = ((handle_object *)self)->handle;
    Py_BEGIN_ALLOW_THREADS results = mappings_py_tests(catalog, identifier, &length);
    Py_END_ALLOW_THREADS
    tag_reader reader = {results, length, 0};
    PyObject *list = value_object(&reader);
    mappings_py_free(results);
    return list;
}

static PyObject *catalog_warnings(PyObject *self, PyObject *unused) {
    char *text = mappings_py_warnings(((handle_object *)self)->handle);
    PyObject *result = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    mappings_py_free(text);
    return result;
}

static PyMethodDef catalog_methods[] = {
    {"warnings", catalog_warnings, METH_NOARGS, "The load's warnings, as the tool prints them."},
    {"tests", catalog_tests, METH_VARARGS, "Runs the contexts' @tests: a list of dicts."},
    {"context", catalog_context, METH_VARARGS, "A context of the catalog, by its identifier."},
    {"identifiers", catalog_identifiers, METH_NOARGS, "The contexts' identifiers, one per line."},
    {NULL},
};

static PyType_Slot catalog_slots[] = {
    {Py_tp_new, (void *)refuse_new},
    {Py_tp_dealloc, (void *)handle_dealloc}, {Py_tp_methods, catalog_methods}, {0, NULL}};
static PyType_Spec catalog_spec = {"mappings._native.Catalog", sizeof(handle_object), 0, Py_TPFLAGS_DEFAULT,
                                   catalog_slots};

// Context.map(payload: bytes) -> Result
static PyObject *context_map(PyObject *self, PyObject *argument) {
    char *bytes;
    Py_ssize_t count;
    if (PyBytes_AsStringAndSize(argument, &bytes, &count) < 0) return NULL;
    int64_t length = 0;
    uint8_t *results;
    void *context = ((handle_object *)self)->handle;
    Py_BEGIN_ALLOW_THREADS results = mappings_py_map(context, (const uint8_t *)bytes, count, &length);
    Py_END_ALLOW_THREADS
    tag_reader reader = {results, length, 0};
    PyObject *result = result_from(&reader);
    mappings_py_free(results);
    return result;
}

// Context.lines(workers) -> Session
static PyObject *context_lines(PyObject *self, PyObject *args) {
    int workers = 1;
    if (!PyArg_ParseTuple(args, "i", &workers)) return NULL;
    void *session;
    void *context = ((handle_object *)self)->handle;
    Py_BEGIN_ALLOW_THREADS session = mappings_py_lines_open(context, workers);
    Py_END_ALLOW_THREADS
    return wrap(state.session_type, session);
}

static PyObject *context_schema_text(PyObject *self, PyObject *unused) {
    char *text = mappings_py_arrow_schema_text(((handle_object *)self)->handle);
    PyObject *result = PyUnicode_FromString(text);
    mappings_py_free(text);
    return result;
}

// Hands a C Data Interface schema (and array) to `importer` (pyarrow's _import_from_c), and
// frees the structures, releasing what the importer did not take.
static PyObject *hand_over(PyObject *importer, struct ArrowArray *array, struct ArrowSchema *schema) {
    PyObject *result = array != NULL
                           ? PyObject_CallFunction(importer, "KK", (unsigned long long)(uintptr_t)array,
                                                   (unsigned long long)(uintptr_t)schema)
                           : PyObject_CallFunction(importer, "K", (unsigned long long)(uintptr_t)schema);
    if (array != NULL) {
        if (array->release != NULL) array->release(array);
        free(array);
    }
    if (schema->release != NULL) schema->release(schema);
    free(schema);
    return result;
}

// Context.arrow_schema(importer) -> pyarrow.Schema
static PyObject *context_arrow_schema(PyObject *self, PyObject *importer) {
    struct ArrowSchema *schema = calloc(1, sizeof(struct ArrowSchema));
    if (schema == NULL) return PyErr_NoMemory();
    void *context = ((handle_object *)self)->handle;
    Py_BEGIN_ALLOW_THREADS mappings_py_arrow_schema(context, schema);
    Py_END_ALLOW_THREADS
    return hand_over(importer, NULL, schema);
}

static PyMethodDef context_methods[] = {
    {"map", context_map, METH_O, "Maps one payload (bytes): a Result."},
    {"lines", context_lines, METH_VARARGS, "A session mapping NDJSON on N workers."},
    {"arrow_schema_text", context_schema_text, METH_NOARGS, "The Arrow schema as pyarrow prints it."},
    {"arrow_schema", context_arrow_schema, METH_O, "The Arrow schema, given to pyarrow's Schema._import_from_c."},
    {NULL},
};

static PyType_Slot context_slots[] = {
    {Py_tp_new, (void *)refuse_new},
    {Py_tp_dealloc, (void *)handle_dealloc}, {Py_tp_methods, context_methods}, {0, NULL}};
static PyType_Spec context_spec = {"mappings._native.Context", sizeof(handle_object), 0, Py_TPFLAGS_DEFAULT,
                                   context_slots};

// A signal's handler raised (Ctrl-C: KeyboardInterrupt): the session stops, and -1 is returned
// with the exception set; 0 otherwise.
static int interrupted(void *session) {
    if (PyErr_CheckSignals() == 0) return 0;
    Py_BEGIN_ALLOW_THREADS mappings_py_lines_stop(session);
    Py_END_ALLOW_THREADS
    return -1;
}

// Queues bytes[0:count] (whole lines), slice after slice, signals looked for between; -1 when a
// signal's handler raised.
static int submit_bytes(void *session, const char *bytes, Py_ssize_t count) {
    Py_ssize_t taken = 0;
    while (taken < count) {
        int64_t more;
        Py_BEGIN_ALLOW_THREADS more = mappings_py_lines_submit(session, (const uint8_t *)bytes + taken, count - taken);
        Py_END_ALLOW_THREADS
        taken += (Py_ssize_t)more;
        if (taken < count && interrupted(session) < 0) return -1;
    }
    return 0;
}

// Session.submit(lines: bytes)
static PyObject *session_submit(PyObject *self, PyObject *argument) {
    char *bytes;
    Py_ssize_t count;
    if (PyBytes_AsStringAndSize(argument, &bytes, &count) < 0) return NULL;
    if (submit_bytes(((handle_object *)self)->handle, bytes, count) < 0) return NULL;
    Py_RETURN_NONE;
}

// Session.submit_range(data: bytes, start, end): queues data[start:end] (whole lines) without
// making that slice first.
static PyObject *session_submit_range(PyObject *self, PyObject *args) {
    PyObject *data;
    Py_ssize_t start, end;
    if (!PyArg_ParseTuple(args, "Onn", &data, &start, &end)) return NULL;
    char *bytes;
    Py_ssize_t count;
    if (PyBytes_AsStringAndSize(data, &bytes, &count) < 0) return NULL;
    if (start < 0 || end > count || start > end) {
        PyErr_SetString(PyExc_ValueError, "mappings: a range outside the bytes");
        return NULL;
    }
    if (submit_bytes(((handle_object *)self)->handle, bytes + start, end - start) < 0) return NULL;
    Py_RETURN_NONE;
}

// Session.submit_lines(iterator, budget) -> bool: takes lines (bytes, or str as UTF-8; a line's
// own line end is optional) from `iterator` until they hold `budget` bytes or it ends, and
// queues them as one block, copied once; False when the iterator ended. A line that holds a
// line feed is two records: ValueError, and nothing of the block is queued.
static PyObject *session_submit_lines(PyObject *self, PyObject *args) {
    PyObject *iterator;
    Py_ssize_t budget;
    if (!PyArg_ParseTuple(args, "On", &iterator, &budget)) return NULL;
    Py_ssize_t capacity = 256, count = 0, size = 0;
    PyObject **held = malloc(capacity * sizeof(PyObject *));
    const uint8_t **parts = malloc(capacity * sizeof(uint8_t *));
    int64_t *lengths = malloc(capacity * sizeof(int64_t));
    int more = 1, failed = 0;
    if (held == NULL || parts == NULL || lengths == NULL) {
        PyErr_NoMemory();
        failed = 1;
    }
    while (!failed && size < budget) {
        PyObject *line = PyIter_Next(iterator);
        if (line == NULL) {
            if (PyErr_Occurred()) failed = 1;
            more = 0;
            break;
        }
        PyObject *bytes;
        if (PyBytes_Check(line)) {
            bytes = line;
        } else if (PyLong_Check(line)) {
            // bytes(5) would be five zero bytes, not a line.
            PyErr_SetString(PyExc_TypeError, "a line is bytes or str, not an int");
            Py_DECREF(line);
            failed = 1;
            break;
        } else {
            bytes = PyUnicode_Check(line) ? PyUnicode_AsEncodedString(line, "utf-8", "surrogatepass")
                                          : PyObject_Bytes(line);
            Py_DECREF(line);
            if (bytes == NULL) {
                failed = 1;
                break;
            }
        }
        if (count == capacity) {
            capacity *= 2;
            PyObject **more_held = realloc(held, capacity * sizeof(PyObject *));
            if (more_held != NULL) held = more_held;
            const uint8_t **more_parts = realloc(parts, capacity * sizeof(uint8_t *));
            if (more_parts != NULL) parts = more_parts;
            int64_t *more_lengths = realloc(lengths, capacity * sizeof(int64_t));
            if (more_lengths != NULL) lengths = more_lengths;
            if (more_held == NULL || more_parts == NULL || more_lengths == NULL) {
                Py_DECREF(bytes);
                PyErr_NoMemory();
                failed = 1;
                break;
            }
        }
        char *text;
        Py_ssize_t length;
        if (PyBytes_AsStringAndSize(bytes, &text, &length) < 0) {
            Py_DECREF(bytes);
            failed = 1;
            break;
        }
        held[count] = bytes;
        // The line's own end (\n or \r\n) is optional; any other line feed would make two lines.
        if (length > 0 && text[length - 1] == '\n') length -= 1;
        parts[count] = (const uint8_t *)text;
        lengths[count] = length;
        count += 1;
        size += length + 1;
    }
    if (!failed && count > 0) {
        // The library checks each line for a line feed as it copies it (its bytes are read once).
        void *session = ((handle_object *)self)->handle;
        Py_ssize_t taken = 0;
        while (!failed && taken < count) {
            int64_t holding, mapped = 0;
            Py_BEGIN_ALLOW_THREADS holding = mappings_py_lines_submit_parts(session, parts + taken, lengths + taken,
                                                                            count - taken, &mapped);
            Py_END_ALLOW_THREADS
            taken += (Py_ssize_t)mapped;
            if (holding >= 0) {
                PyErr_SetString(PyExc_ValueError, "a line holds a line feed: NDJSON is one record per line");
                failed = 1;
            } else if (taken < count && interrupted(session) < 0) {
                failed = 1;
            }
        }
    }
    for (Py_ssize_t index = 0; index < count; index++) Py_DECREF(held[index]);
    free(held);
    free(parts);
    free(lengths);
    if (failed) return NULL;
    return PyBool_FromLong(more);
}

static PyObject *session_pending(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(mappings_py_lines_pending(((handle_object *)self)->handle));
}

// Session.take() -> list of Result, or None when nothing is pending
static PyObject *session_take(PyObject *self, PyObject *unused) {
    int64_t length = 0;
    const uint8_t *results;
    void *session = ((handle_object *)self)->handle;
    int32_t ready = 0;
    while (!ready) {
        Py_BEGIN_ALLOW_THREADS ready = mappings_py_lines_wait(session, 50);
        Py_END_ALLOW_THREADS
        if (!ready && interrupted(session) < 0) return NULL;
    }
    Py_BEGIN_ALLOW_THREADS results = mappings_py_lines_take(session, &length);
    Py_END_ALLOW_THREADS
    if (results == NULL) Py_RETURN_NONE;
    // The session's bytes, read in place: they stay until its next take.
    return results_from(results, length);
}

// Session.arrow_rows() -> (rows, bytes)
static PyObject *session_arrow_rows(PyObject *self, PyObject *unused) {
    int64_t bytes = 0;
    int64_t rows = mappings_py_arrow_rows(((handle_object *)self)->handle, &bytes);
    return Py_BuildValue("LL", (long long)rows, (long long)bytes);
}

// Session.arrow_batch(importer) -> pyarrow.RecordBatch (the struct array's columns)
static PyObject *session_arrow_batch(PyObject *self, PyObject *importer) {
    struct ArrowArray *array = calloc(1, sizeof(struct ArrowArray));
    struct ArrowSchema *schema = calloc(1, sizeof(struct ArrowSchema));
    if (array == NULL || schema == NULL) {
        free(array);
        free(schema);
        return PyErr_NoMemory();
    }
    void *session = ((handle_object *)self)->handle;
    Py_BEGIN_ALLOW_THREADS mappings_py_arrow_export(session, array, schema);
    Py_END_ALLOW_THREADS
    return hand_over(importer, array, schema);
}

static PyMethodDef session_methods[] = {
    {"submit", session_submit, METH_O, "Queues whole lines (bytes)."},
    {"submit_range", session_submit_range, METH_VARARGS, "Queues data[start:end], whole lines."},
    {"submit_lines", session_submit_lines, METH_VARARGS, "Queues lines from an iterator, up to a budget."},
    {"pending", session_pending, METH_NOARGS, "Blocks queued and not taken."},
    {"take", session_take, METH_NOARGS, "The head block's results (waits for them), or None."},
    {"arrow_rows", session_arrow_rows, METH_NOARGS, "Rows in the Arrow columns, and their bytes."},
    {"arrow_batch", session_arrow_batch, METH_O, "The Arrow rows, given to RecordBatch._import_from_c."},
    {NULL},
};

static PyType_Slot session_slots[] = {
    {Py_tp_new, (void *)refuse_new},
    {Py_tp_dealloc, (void *)handle_dealloc}, {Py_tp_methods, session_methods}, {0, NULL}};
static PyType_Spec session_spec = {"mappings._native.Session", sizeof(handle_object), 0, Py_TPFLAGS_DEFAULT,
                                   session_slots};

// ---- Scripts' log lines: to mappings._log (Python's logging), from whichever thread logs.

static void log_line(const char *line, int64_t length) {
    PyGILState_STATE gil = PyGILState_Ensure();
    if (state.log != NULL) {
        PyObject *result = PyObject_CallFunction(state.log, "s#", line, (Py_ssize_t)length);
        if (result == NULL) PyErr_Clear();
        Py_XDECREF(result);
    }
    PyGILState_Release(gil);
}

// load(contexts, scripts, options_json, log) -> Catalog
static PyObject *module_load(PyObject *module, PyObject *args) {
    const char *contexts, *scripts, *options;
    PyObject *log;
    if (!PyArg_ParseTuple(args, "sssO", &contexts, &scripts, &options, &log)) return NULL;
    if (log != Py_None) {
        Py_INCREF(log);
        Py_XDECREF(state.log);
        state.log = log;
    }
    char *error = NULL;
    void *catalog;
    Py_BEGIN_ALLOW_THREADS catalog = mappings_py_load(contexts, scripts, options, log_line, &error);
    Py_END_ALLOW_THREADS
    if (catalog == NULL) return raise_load_error(error);
    return wrap(state.catalog_type, catalog);
}

// limits() -> str: the ranges of load()'s Lua limits, a JSON object of [low, high] by argument.
static PyObject *module_limits(PyObject *module, PyObject *unused) {
    char *text = mappings_py_limits();
    PyObject *limits = PyUnicode_FromString(text);
    mappings_py_free(text);
    return limits;
}

static PyMethodDef module_methods[] = {
    {"load", module_load, METH_VARARGS, "Loads a catalog: load(contexts, scripts, options_json, log)."},
    {"limits", module_limits, METH_NOARGS, "The ranges of load()'s Lua limits (JSON)."},
    {NULL},
};

static struct PyModuleDef module_definition = {PyModuleDef_HEAD_INIT, "mappings._native",
                                               "The native part of mappings (the Swift library).", -1,
                                               module_methods};

static PyObject *attribute(const char *module_name, const char *name) {
    PyObject *module = PyImport_ImportModule(module_name);
    if (module == NULL) return NULL;
    PyObject *value = PyObject_GetAttrString(module, name);
    Py_DECREF(module);
    return value;
}

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *module = PyModule_Create(&module_definition);
    if (module == NULL) return NULL;
    state.decimal = attribute("decimal", "Decimal");
    state.datetime = attribute("datetime", "datetime");
    PyObject *timezone = attribute("datetime", "timezone");
    state.utc = timezone != NULL ? PyObject_GetAttrString(timezone, "utc") : NULL;
    Py_XDECREF(timezone);
    state.dates = (datetime_api *)PyCapsule_Import("datetime.datetime_CAPI", 0);
    state.new_presized = (PyObject * (*)(Py_ssize_t)) dlsym(RTLD_DEFAULT, "_PyDict_NewPresized");
    if (state.dates == NULL) PyErr_Clear();
    static const char *status_names[] = {"clean", "warnings", "errors", "invalid", "filtered"};
    for (int index = 0; index < 5; index++) {
        state.statuses[index] = PyUnicode_InternFromString(status_names[index]);
        if (state.statuses[index] == NULL) return NULL;
    }
    state.load_error = PyErr_NewExceptionWithDoc(
        "mappings.LoadError", "The .mappings files (or a context) could not be loaded: `diagnostics` holds what "
                              "`mappings check` prints.",
        NULL, NULL);
    state.result_type = PyType_FromSpec(&result_spec);
    state.catalog_type = PyType_FromSpec(&catalog_spec);
    state.context_type = PyType_FromSpec(&context_spec);
    state.session_type = PyType_FromSpec(&session_spec);
    if (state.decimal == NULL || state.datetime == NULL || state.utc == NULL || state.load_error == NULL ||
        state.result_type == NULL || state.catalog_type == NULL || state.context_type == NULL ||
        state.session_type == NULL) {
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(state.load_error);
    Py_INCREF(state.result_type);
    PyModule_AddObject(module, "LoadError", state.load_error);
    PyModule_AddObject(module, "Result", state.result_type);
    return module;
}
