"""./dev.sh release built twice from one commit, in two folders of different names, both
signed with a throwaway certificate: every file of the two release folders has the same
bytes, the unsigned exes too; the signed exe verifies (osslsigncode) and a tampered copy
does not, and with its signature removed it is the unsigned exe again; the bill of
materials validates against SPDX 2.3 and names every library linked in with its Debian
version and licence; `mcpb validate` accepts the bundle, which starts `winagent.exe mcp`
with the tools `winagent mcp` lists; the winget manifest validates against schema 1.6.0;
the exe carries its version resource and no build path."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

SRC = os.environ.get("WINAGENT_SRC") or os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
NATIVE = os.environ.get("WINAGENT_NATIVE_EXE", "")
TOOLS = os.path.join(SRC, "tests", "release")
MCPB = os.path.join(TOOLS, "node_modules", ".bin", "mcpb")
PASSWORD = "release-test-pass"
CACHE = os.environ.get("WINAGENT_CACHE") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "winagent")


def sh(*cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def make_certificate(d):
    """A throwaway CA and a code-signing certificate it issued, as a password PKCS#12."""
    def ossl(*args):
        p = sh("openssl", *args, cwd=d)
        if p.returncode:
            raise AssertionError("openssl %s: %s" % (args[0], p.stderr))
    ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
         "-days", "2", "-subj", "/CN=winagent release test CA",
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "signer.key", "-out", "signer.csr",
         "-subj", "/CN=winagent release test signer")
    with open(os.path.join(d, "ext.cnf"), "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\n"
                "extendedKeyUsage=codeSigning\n")
    ossl("x509", "-req", "-in", "signer.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
         "-CAcreateserial", "-out", "signer.pem", "-days", "2", "-extfile", "ext.cnf")
    ossl("pkcs12", "-export", "-inkey", "signer.key", "-in", "signer.pem", "-certfile", "ca.pem",
         "-out", "signer.pfx", "-passout", "pass:" + PASSWORD)
    return os.path.join(d, "signer.pfx"), os.path.join(d, "ca.pem")


def copy_tree(dest):
    """The checkout's files (tracked and new, not ignored) into dest, as a clone would
    have them; the release's npm folder is linked, not copied."""
    files = sh("git", "-C", SRC, "ls-files", "-z", "--cached", "--others", "--exclude-standard",
               check=True).stdout.split("\0")
    for rel in filter(None, files):
        src = os.path.join(SRC, rel)
        if not os.path.lexists(src):
            continue  # deleted in the work tree
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(dest, rel), follow_symlinks=False)
    os.symlink(os.path.join(TOOLS, "node_modules"),
               os.path.join(dest, "tests", "release", "node_modules"))


class Release(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="wa-release-")
        cls.pfx, cls.ca = make_certificate(cls.tmp)
        epoch = sh("git", "-C", SRC, "log", "-1", "--format=%ct", check=True).stdout.strip()
        commit = sh("git", "-C", SRC, "rev-parse", "HEAD", check=True).stdout.strip()
        env = dict(os.environ, SOURCE_DATE_EPOCH=epoch, WINAGENT_COMMIT=commit,
                   WINAGENT_SIGN_PFX=cls.pfx, WINAGENT_SIGN_PASSWORD=PASSWORD,
                   WINAGENT_SIGN_CAFILE=cls.ca, WINAGENT_NATIVE_EXE=NATIVE)
        env.pop("WINAGENT_RELEASE_BUILD", None)
        # Two checkouts whose paths differ in name and length.
        cls.trees = [os.path.join(cls.tmp, "a", "winagent"),
                     os.path.join(cls.tmp, "second-build-folder", "src", "winagent-checkout")]
        cls.outs = [os.path.join(cls.tmp, "out-a"), os.path.join(cls.tmp, "out-b-longer")]
        for tree, out in zip(cls.trees, cls.outs):
            copy_tree(tree)
            p = sh("bash", os.path.join(tree, "cmake", "release", "release.sh"), out, env=env,
                   timeout=2400)
            if p.returncode:
                raise AssertionError("release.sh in %s failed:\n%s" % (tree, p.stderr[-4000:]))
        cls.out = cls.outs[0]
        cls.exe = os.path.join(cls.out, "winagent.exe")
        cls.unsigned = os.path.join(cls.trees[0], "build", "release", "win64", "winagent.exe")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def files(self, out):
        return sorted(os.path.relpath(os.path.join(d, f), out)
                      for d, _, fs in os.walk(out) for f in fs)

    # ---- reproducible ----

    def test_two_folders_give_the_same_bytes(self):
        a, b = self.outs
        self.assertEqual(self.files(a), self.files(b))
        self.assertEqual(self.files(a), [
            "SHA256SUMS", "UNSIGNED-SHA256SUMS", "winagent.exe", "winagent.mcpb",
            "winagent.spdx.json", "winget/winagent.winagent.installer.yaml",
            "winget/winagent.winagent.locale.en-US.yaml", "winget/winagent.winagent.yaml"])
        for f in self.files(a):
            self.assertEqual(sha256(os.path.join(a, f)), sha256(os.path.join(b, f)), f)
        unsigned = [os.path.join(t, "build", "release", "win64", "winagent.exe")
                    for t in self.trees]
        self.assertEqual(sha256(unsigned[0]), sha256(unsigned[1]))

    def test_the_sums_are_the_files(self):
        p = sh("sha256sum", "-c", "SHA256SUMS", cwd=self.out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(self.out, "UNSIGNED-SHA256SUMS")) as f:
            self.assertEqual(f.read().split()[0], sha256(self.unsigned))

    def test_no_build_path_or_build_time_is_in_any_file(self):
        needles = [t.encode() for t in self.trees] + [SRC.encode(), CACHE.encode(),
                                                      self.tmp.encode()]
        for f in [os.path.join(self.out, f) for f in self.files(self.out)] + [self.unsigned]:
            with open(f, "rb") as fh:
                data = fh.read()
            for n in needles:
                self.assertNotIn(n, data, "%s holds %s" % (f, n.decode()))
        # PE header: the COFF TimeDateStamp is 0, not the moment of linking
        with open(self.unsigned, "rb") as fh:
            data = fh.read()
        pe = int.from_bytes(data[0x3C:0x40], "little")
        self.assertEqual(data[pe:pe + 4], b"PE\0\0")
        self.assertEqual(int.from_bytes(data[pe + 8:pe + 12], "little"), 0)

    # ---- signed ----

    def test_the_signed_exe_verifies_and_a_tampered_copy_does_not(self):
        p = sh("osslsigncode", "verify", "-CAfile", self.ca, "-in", self.exe)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("Signature verification: ok", p.stdout)
        self.assertIn("CN=winagent release test signer", p.stdout)
        tampered = os.path.join(self.tmp, "tampered.exe")
        shutil.copy(self.exe, tampered)
        with open(tampered, "r+b") as f:
            f.seek(0x1000)  # inside .text
            byte = f.read(1)
            f.seek(0x1000)
            f.write(bytes([byte[0] ^ 0xFF]))
        p = sh("osslsigncode", "verify", "-CAfile", self.ca, "-in", tampered)
        self.assertNotEqual(p.returncode, 0, "a tampered exe verified:\n" + p.stdout)
        self.assertNotEqual(sha256(self.exe), sha256(self.unsigned))

    def test_without_its_signature_the_exe_is_the_unsigned_build(self):
        plain = os.path.join(self.tmp, "plain.exe")
        p = sh("osslsigncode", "remove-signature", "-in", self.exe, "-out", plain)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(sha256(plain), sha256(self.unsigned))

    def test_the_exe_carries_its_version_resource(self):
        with open(self.exe, "rb") as f:
            text = f.read().decode("utf-16-le", errors="replace")
        with open(os.path.join(SRC, "CMakeLists.txt")) as f:
            version = re.search(r"project\(winagent VERSION ([0-9.]+)", f.read()).group(1)
        for key, value in (("ProductName", "winagent"), ("ProductVersion", version),
                           ("FileVersion", version),
                           ("FileDescription", "winagent desktop agent"),
                           ("LegalCopyright", "Copyright (C) the winagent authors"),
                           ("OriginalFilename", "winagent.exe")):
            self.assertRegex(text, re.escape(key) + "\0+" + re.escape(value) + "\0", key)

    # ---- the bill of materials ----

    def test_the_bill_of_materials_validates_and_names_every_library(self):
        path = os.path.join(self.out, "winagent.spdx.json")
        p = sh("node", os.path.join(TOOLS, "validate.mjs"), "spdx", path)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(path) as f:
            doc = json.load(f)
        self.assertEqual(doc["spdxVersion"], "SPDX-2.3")
        pkgs = {p["name"]: p for p in doc["packages"]}
        self.assertEqual(pkgs["winagent"]["checksums"][0]["checksumValue"], sha256(self.exe))
        for name in ("curl", "cjson", "civetweb", "lodepng", "libz-mingw-w64", "mingw-w64",
                     "gcc-mingw-w64", "libstb"):
            self.assertIn(name, pkgs, "the bill of materials lacks " + name)
            self.assertNotEqual(pkgs[name]["licenseDeclared"], "NOASSERTION", name)
        self.assertEqual(pkgs["curl"]["licenseDeclared"], "curl")
        self.assertEqual(pkgs["libz-mingw-w64"]["licenseDeclared"], "Zlib")
        self.assertIn("libwinpthread.a", pkgs["mingw-w64"]["comment"])
        q = sh("dpkg-query", "-W", "-f=${source:Version}", "mingw-w64-x86-64-dev")
        self.assertEqual(pkgs["mingw-w64"]["versionInfo"], q.stdout)
        with open(os.path.join(self.cache_dir("lodepng"), "SOURCE")) as f:
            self.assertEqual(pkgs["lodepng"]["versionInfo"], f.read().split()[1])
        linked = {r["relatedSpdxElement"] for r in doc["relationships"]
                  if r["relationshipType"] == "STATIC_LINK"}
        self.assertEqual(linked, {p["SPDXID"] for p in doc["packages"]
                                  if p["name"] != "winagent"})

    def cache_dir(self, what):
        return sh("bash", os.path.join(SRC, "cmake", "build-deps.sh"), what,
                  check=True).stdout.strip()

    # ---- the MCP bundle ----

    def test_mcpb_validates_the_bundle_and_it_serves_the_tables_tools(self):
        unpacked = os.path.join(self.tmp, "unpacked")
        p = sh(MCPB, "unpack", os.path.join(self.out, "winagent.mcpb"), unpacked)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(sorted(os.listdir(unpacked)), ["manifest.json", "winagent.exe"])
        self.assertEqual(sha256(os.path.join(unpacked, "winagent.exe")), sha256(self.exe))
        p = sh(MCPB, "validate", os.path.join(unpacked, "manifest.json"))
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(unpacked, "manifest.json")) as f:
            m = json.load(f)
        cfg = m["server"]["mcp_config"]
        self.assertEqual(m["server"]["entry_point"], "winagent.exe")
        self.assertEqual((cfg["command"], cfg["args"]), ("${__dirname}/winagent.exe", ["mcp"]))
        self.assertEqual(set(m["user_config"]), {"apps", "shell", "delivery"})
        self.assertEqual(cfg["env"], {"WINAGENT_APPS": "${user_config.apps}",
                                      "WINAGENT_ALLOW_SHELL": "${user_config.shell}",
                                      "WINAGENT_DELIVERY": "${user_config.delivery}"})
        self.assertEqual([t["name"] for t in m["tools"]], self.served_tools())
        self.assertIn("powershell", [t["name"] for t in m["tools"]])

    def served_tools(self):
        """What `winagent mcp --allow-shell` lists, asked here on its own."""
        scene = os.path.join(self.tmp, "scene.json")
        with open(scene, "w") as f:
            json.dump({"monitors": [{"rect": [0, 0, 800, 600], "primary": True}],
                       "windows": []}, f)
        msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                            "clientInfo": {"name": "t", "version": "1"}}},
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
        p = sh(NATIVE, "mcp", "--allow-shell", input="".join(json.dumps(x) + "\n" for x in msgs),
               env=dict(os.environ, WINAGENT_FAKE_SCENE=scene), timeout=60)
        for line in p.stdout.splitlines():
            r = json.loads(line)
            if r.get("id") == 2:
                return [t["name"] for t in r["result"]["tools"]]
        raise AssertionError("no tools/list answer: " + p.stderr)

    def test_a_wrong_bundle_manifest_is_refused(self):
        bad = os.path.join(self.tmp, "bad-manifest.json")
        sh(MCPB, "unpack", os.path.join(self.out, "winagent.mcpb"),
           os.path.join(self.tmp, "unpacked2"), check=True)
        with open(os.path.join(self.tmp, "unpacked2", "manifest.json")) as f:
            m = json.load(f)
        del m["server"]["entry_point"]
        with open(bad, "w") as f:
            json.dump(m, f)
        p = sh(MCPB, "validate", bad)
        self.assertNotEqual(p.returncode, 0, "mcpb validate took a manifest without entry_point")

    # ---- winget ----

    def test_the_winget_manifest_validates_and_points_at_the_exe(self):
        d = os.path.join(self.out, "winget")
        p = sh("node", os.path.join(TOOLS, "validate.mjs"), "winget", d)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(d, "winagent.winagent.installer.yaml")) as f:
            text = f.read()
        self.assertIn('InstallerSha256: "%s"' % sha256(self.exe).upper(), text)
        self.assertIn('InstallerType: "portable"', text)

    def test_a_manifest_outside_its_schema_fails(self):
        d = os.path.join(self.tmp, "winget-bad")
        shutil.copytree(os.path.join(self.out, "winget"), d)
        path = os.path.join(d, "winagent.winagent.installer.yaml")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace('InstallerType: "portable"', 'InstallerType: "tarball"'))
        p = sh("node", os.path.join(TOOLS, "validate.mjs"), "winget", d)
        self.assertNotEqual(p.returncode, 0, p.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
