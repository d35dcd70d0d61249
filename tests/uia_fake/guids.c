/* uia_fake's GUIDs: the UI Automation header's interface and class ids, defined once
 * (no MinGW import library carries them). */
#define COBJMACROS
#include <windows.h>
#include <ole2.h>
#include <initguid.h>
#include <uiautomationclient.h>
