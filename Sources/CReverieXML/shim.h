#ifndef REVERIE_XML_SHIM_H
#define REVERIE_XML_SHIM_H
/* Debian's libxml2 is built with ICU, and its encoding header would pull ICU's C headers in,
   which clash with Foundation's own copy of ICU; nothing here needs them. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/HTMLparser.h>

/// xmlFree is a global function pointer, which Swift 6 refuses to use; this calls it.
static inline void reverie_xml_free(void *pointer) { xmlFree(pointer); }

/// Silences libxml2's printing of errors to stderr (they come back as our own errors instead).
static inline void reverie_xml_quiet(void) { xmlSetGenericErrorFunc(NULL, NULL); xmlSetStructuredErrorFunc(NULL, NULL); }
#endif
