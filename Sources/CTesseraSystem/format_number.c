// One number through snprintf, which Swift cannot call (it is variadic): Swift's own
// route, vsnprintf with a va_list that withVaList builds, asks of each argument whether
// it is passed as a double, a protocol cast that searches the binary's conformance
// records on its first use (String(cFormat:) in TesseraCore).
#include <stdio.h>
#include "CTesseraSystem.h"

int tessera_format_signed(char *buffer, size_t size, const char *spec, long long value) {
    return snprintf(buffer, size, spec, value);
}

int tessera_format_unsigned(char *buffer, size_t size, const char *spec, unsigned long long value) {
    return snprintf(buffer, size, spec, value);
}

int tessera_format_double(char *buffer, size_t size, const char *spec, double value) {
    return snprintf(buffer, size, spec, value);
}
