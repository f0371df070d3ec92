package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
)

const (
	testIssuer   = "https://id.example"
	testResource = "https://photos.example/mcp"
)

// testKeys are an RSA and a P-256 key with the JWKS that publishes them.
type testKeys struct {
	rsa  *rsa.PrivateKey
	ec   *ecdsa.PrivateKey
	jwks []byte
}

func enc(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func newTestKeys(t *testing.T) testKeys {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := ek.PublicKey.Bytes() // 0x04 || x || y
	if err != nil {
		t.Fatal(err)
	}
	set := map[string]any{"keys": []any{
		map[string]string{"kty": "RSA", "kid": "r1", "use": "sig", "alg": "RS256", "n": enc(rk.N.Bytes()), "e": enc(big.NewInt(int64(rk.E)).Bytes())},
		map[string]string{"kty": "EC", "kid": "e1", "crv": "P-256", "x": enc(pt[1:33]), "y": enc(pt[33:])},
		// Keys this verifier does not use are skipped, not fatal.
		map[string]string{"kty": "OKP", "kid": "o1", "crv": "Ed25519", "x": "AAAA"},
		map[string]string{"kty": "RSA", "kid": "enc1", "use": "enc", "n": "AQAB", "e": "AQAB"},
	}}
	b, _ := json.Marshal(set)
	return testKeys{rsa: rk, ec: ek, jwks: b}
}

// sign makes a compact JWS of claims with the header's alg and kid.
func (k testKeys) sign(t *testing.T, alg, kid string, claims map[string]any) string {
	t.Helper()
	h, _ := json.Marshal(map[string]string{"alg": alg, "kid": kid, "typ": "JWT"})
	c, _ := json.Marshal(claims)
	in := enc(h) + "." + enc(c)
	d := sha256.Sum256([]byte(in))
	var sig []byte
	switch alg {
	case "RS256":
		s, err := rsa.SignPKCS1v15(rand.Reader, k.rsa, crypto.SHA256, d[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = s
	case "ES256":
		r, s, err := ecdsa.Sign(rand.Reader, k.ec, d[:])
		if err != nil {
			t.Fatal(err)
		}
		sig = append(r.FillBytes(make([]byte, 32)), s.FillBytes(make([]byte, 32))...)
	case "HS256":
		// The classic confusion: HMAC keyed with the RSA public key's bytes.
		m := hmac.New(sha256.New, k.rsa.PublicKey.N.Bytes())
		m.Write([]byte(in))
		sig = m.Sum(nil)
	case "none":
	}
	return in + "." + enc(sig)
}

var testNow = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func goodClaims() map[string]any {
	return map[string]any{
		"iss":   testIssuer,
		"sub":   "auth0|6f1a",
		"aud":   []string{"https://other.example", testResource},
		"exp":   testNow.Add(time.Hour).Unix(),
		"nbf":   testNow.Add(-time.Minute).Unix(),
		"scope": "openid edit read edit",
	}
}

func with(m map[string]any, k string, v any) map[string]any {
	out := map[string]any{}
	for kk, vv := range m {
		out[kk] = vv
	}
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

func testVerifier(t *testing.T, k testKeys) *JWTVerifier {
	t.Helper()
	v, err := ParseJWKS(k.jwks, testIssuer, testResource, testPolicy(t))
	if err != nil {
		t.Fatal(err)
	}
	v.Now = func() time.Time { return testNow }
	return v
}

func TestJWTAccepts(t *testing.T) {
	k := newTestKeys(t)
	v := testVerifier(t, k)
	for _, tc := range []struct{ alg, kid string }{{"RS256", "r1"}, {"ES256", "e1"}} {
		tok := k.sign(t, tc.alg, tc.kid, goodClaims())
		ti, err := v.TokenVerifier()(t.Context(), tok, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.alg, err)
		}
		p, ok := FromTokenInfo(ti)
		if !ok {
			t.Fatalf("%s: no principal in the TokenInfo", tc.alg)
		}
		// Scopes that are not grants are dropped; grants come in grant_order, once.
		if p.Name != "auth0|6f1a" || p.UserID != "jwt:"+testIssuer+"#auth0|6f1a" || strings.Join(p.Grants, " ") != "read edit" {
			t.Errorf("%s: principal %+v", tc.alg, p)
		}
		if !ti.Expiration.Equal(testNow.Add(time.Hour)) || strings.Join(ti.Scopes, " ") != "read edit" {
			t.Errorf("%s: expiration %v scopes %v", tc.alg, ti.Expiration, ti.Scopes)
		}
		if err := testPolicy(t).c.CheckName("workspace", p.Workspace); err != nil {
			t.Errorf("%s: workspace %q is not a name: %v", tc.alg, p.Workspace, err)
		}
	}
	// A single-string aud, a trailing slash, exp inside the leeway.
	tok := k.sign(t, "ES256", "e1", with(with(goodClaims(), "aud", testResource+"/"), "exp", testNow.Add(-10*time.Second).Unix()))
	if _, _, err := v.Verify(tok); err != nil {
		t.Errorf("aud as one string, 10 s past exp: %v", err)
	}
	// Grants as an scp list, as some issuers send them.
	p, _, err := v.Verify(k.sign(t, "RS256", "r1", with(with(goodClaims(), "scope", nil), "scp", []string{"admin", "offline_access"})))
	if err != nil || strings.Join(p.Grants, " ") != "admin" {
		t.Errorf("scp [admin offline_access]: %+v %v", p, err)
	}
	// Another subject of the same issuer gets another workspace.
	p1, _, _ := v.Verify(k.sign(t, "ES256", "e1", goodClaims()))
	p2, _, _ := v.Verify(k.sign(t, "ES256", "e1", with(goodClaims(), "sub", "auth0|7b2c")))
	if p1 == nil || p2 == nil || p1.Workspace == p2.Workspace {
		t.Errorf("two subjects share a workspace: %+v %+v", p1, p2)
	}
}

func TestJWTRefuses(t *testing.T) {
	k := newTestKeys(t)
	v := testVerifier(t, k)
	other := newTestKeys(t)
	good := k.sign(t, "RS256", "r1", goodClaims())
	parts := strings.Split(good, ".")
	tampered := parts[0] + "." + enc([]byte(`{"iss":"https://id.example","sub":"root","aud":"https://photos.example/mcp","exp":9999999999,"scope":"admin"}`)) + "." + parts[2]
	for _, tc := range []struct {
		name, token, want string
	}{
		{"expired", k.sign(t, "RS256", "r1", with(goodClaims(), "exp", testNow.Add(-time.Minute).Unix())), "expired at 2026-05-01T11:59:00Z"},
		{"no exp", k.sign(t, "RS256", "r1", with(goodClaims(), "exp", nil)), "no exp claim"},
		{"not yet valid", k.sign(t, "ES256", "e1", with(goodClaims(), "nbf", testNow.Add(time.Hour).Unix())), "not valid before"},
		{"other audience", k.sign(t, "RS256", "r1", with(goodClaims(), "aud", "https://photos.example/other")), "does not include https://photos.example/mcp"},
		{"no audience", k.sign(t, "RS256", "r1", with(goodClaims(), "aud", nil)), "does not include"},
		{"other issuer", k.sign(t, "RS256", "r1", with(goodClaims(), "iss", "https://evil.example")), `issuer "https://evil.example" is not`},
		{"no subject", k.sign(t, "ES256", "e1", with(goodClaims(), "sub", nil)), "no sub claim"},
		{"tampered payload", tampered, "bad signature"},
		{"other key, same kid", other.sign(t, "RS256", "r1", goodClaims()), "bad signature"},
		{"other EC key", other.sign(t, "ES256", "e1", goodClaims()), "bad signature"},
		{"alg none", k.sign(t, "none", "r1", goodClaims()), `alg "none" with an RSA key`},
		{"HS256 keyed with the public key", k.sign(t, "HS256", "r1", goodClaims()), `alg "HS256" with an RSA key`},
		{"RS256 header on the EC key", k.sign(t, "RS256", "e1", goodClaims()), `alg "RS256" with an EC key`},
		{"unknown kid", k.sign(t, "RS256", "r9", goodClaims()), `no key with kid "r9"`},
		{"two parts", parts[0] + "." + parts[1], "not a compact JWT"},
		{"garbage header", "!!." + parts[1] + "." + parts[2], "header is not base64url"},
		{"huge", strings.Repeat("a", maxJWT+1), "over"},
	} {
		_, err := v.TokenVerifier()(t.Context(), tc.token, nil)
		if !errors.Is(err, sdkauth.ErrInvalidToken) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalidToken with %q", tc.name, err, tc.want)
			continue
		}
		// The refusal goes back to the client in the 401 body: never the token.
		if len(tc.token) > 40 && strings.Contains(err.Error(), tc.token[len(tc.token)-30:]) {
			t.Errorf("%s: the error quotes the token: %v", tc.name, err)
		}
	}
}

func TestParseJWKSRefuses(t *testing.T) {
	p := testPolicy(t)
	for _, tc := range []struct{ jwks, want string }{
		{`{"keys":[]}`, "no RSA or P-256 signing key"},
		{`{"keys":[{"kty":"RSA","kid":"a","n":"AQAB","e":"AQAB"}]}`, "not an RSA key of 2048 bits or more"},
		{`{"keys":[{"kty":"EC","kid":"a","crv":"P-256","x":"` + enc(make([]byte, 32)) + `","y":"` + enc(make([]byte, 32)) + `"}]}`, "key 0 (a)"},
		{`not json`, "invalid character"},
	} {
		if _, err := ParseJWKS([]byte(tc.jwks), testIssuer, testResource, p); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.jwks, err, tc.want)
		}
	}
	if _, err := ParseJWKS([]byte(`{"keys":[]}`), "", testResource, p); err == nil {
		t.Error("a verifier without an issuer")
	}
}
