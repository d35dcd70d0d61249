/* uia_fake's GUIDs: the UI Automation header's ids, defined once (no import library has them). */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <initguid.h>
#include <uiautomationclient.h>
