/* uia_fake's not-implemented methods: one logging stub per vtable slot. */
#include "uia_fake.h"

#include <string.h>

#define MAX_SLOTS 100
#define MAX_VTBLS 16

typedef HRESULT(STDMETHODCALLTYPE *fake_slot)(void *self);

static struct {
    const void *vtbl;
    const char *iface;
} g_vtbls[MAX_VTBLS];
static volatile LONG g_n_vtbls;

static HRESULT not_implemented(void *self, int slot)
{
    const void *vtbl = *(const void *const *)self;
    const char *iface = "?";
    for (LONG i = 0; i < g_n_vtbls && i < MAX_VTBLS; i++)
        if (g_vtbls[i].vtbl == vtbl)
            iface = g_vtbls[i].iface;
    cJSON *o = fake_log_call("not_implemented", NULL);
    cJSON_AddStringToObject(o, "interface", iface);
    cJSON_AddNumberToObject(o, "slot", slot);
    fake_log(o);
    return E_NOTIMPL;
}

#define STUB(n)                                                                                    \
    static HRESULT STDMETHODCALLTYPE stub_##n(void *self)                                          \
    {                                                                                              \
        return not_implemented(self, n);                                                           \
    }
/* clang-format off */
#define STUB10(d) STUB(d##0) STUB(d##1) STUB(d##2) STUB(d##3) STUB(d##4) \
                  STUB(d##5) STUB(d##6) STUB(d##7) STUB(d##8) STUB(d##9)
/* clang-format on */
STUB10()
STUB10(1)
STUB10(2)
STUB10(3)
STUB10(4)
STUB10(5)
STUB10(6)
STUB10(7)
STUB10(8)
STUB10(9)

#define REF10(d)                                                                                   \
    stub_##d##0, stub_##d##1, stub_##d##2, stub_##d##3, stub_##d##4, stub_##d##5, stub_##d##6,     \
        stub_##d##7, stub_##d##8, stub_##d##9
static const fake_slot stubs[MAX_SLOTS] = {REF10(),  REF10(1), REF10(2), REF10(3), REF10(4),
                                           REF10(5), REF10(6), REF10(7), REF10(8), REF10(9)};

void fake_vtbl_init(void *vtbl, size_t size, const char *iface)
{
    size_t n = size / sizeof(fake_slot);
    for (size_t i = 0; i < n && i < MAX_SLOTS; i++)
        memcpy((char *)vtbl + i * sizeof(fake_slot), &stubs[i], sizeof(fake_slot));
    LONG at = InterlockedIncrement(&g_n_vtbls) - 1;
    if (at < MAX_VTBLS) {
        g_vtbls[at].vtbl = vtbl;
        g_vtbls[at].iface = iface;
    }
}
