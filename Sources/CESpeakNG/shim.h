// eSpeak NG's C API (libespeak-ng-dev), for the Speech module's fallback engine.
#include <espeak-ng/speak_lib.h>
