package auth

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdkauth "github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// maxJWT bounds a bearer JWT before any decoding; maxJWKS bounds the key file.
const (
	maxJWT  = 16 << 10
	maxJWKS = 1 << 20
)

// JWTVerifier checks JWTs signed with RS256 or ES256 by a key of a JWKS.
type JWTVerifier struct {
	// Issuer is the iss every token must carry; Audience the resource URL its aud
	// must contain.
	Issuer   string
	Audience string
	// Leeway is the clock skew allowed on exp and nbf.
	Leeway time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	keys   map[string]crypto.PublicKey // by kid
	policy *Policy
}

// jwk is the part of RFC 7517 we read: RSA and P-256 EC public keys.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Crv string `json:"crv"`
	N   string `json:"n"`
	E   string `json:"e"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// LoadJWKS reads a JWKS file for a verifier of tokens from issuer for audience. Keys
// other than RSA and P-256 EC signing keys are skipped; a file with none is an error.
func LoadJWKS(path, issuer, audience string, policy *Policy) (*JWTVerifier, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("jwks: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxJWKS+1))
	if err != nil {
		return nil, fmt.Errorf("jwks %s: %w", filepath.Base(path), err)
	}
	if len(b) > maxJWKS {
		return nil, fmt.Errorf("jwks %s: over %d bytes", filepath.Base(path), maxJWKS)
	}
	v, err := ParseJWKS(b, issuer, audience, policy)
	if err != nil {
		return nil, fmt.Errorf("jwks %s: %w", filepath.Base(path), err)
	}
	return v, nil
}

// ParseJWKS is LoadJWKS from the file's bytes.
func ParseJWKS(b []byte, issuer, audience string, policy *Policy) (*JWTVerifier, error) {
	if issuer == "" || audience == "" {
		return nil, errors.New("a JWT verifier needs an issuer and an audience")
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, err
	}
	v := &JWTVerifier{Issuer: issuer, Audience: audience, Leeway: 30 * time.Second, keys: map[string]crypto.PublicKey{}, policy: policy}
	for i, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		var pub crypto.PublicKey
		switch k.Kty {
		case "RSA":
			n, err1 := b64(k.N)
			e, err2 := b64(k.E)
			if err := errors.Join(err1, err2); err != nil || len(e) > 4 || len(n) < 256 {
				return nil, fmt.Errorf("key %d (%s): not an RSA key of 2048 bits or more", i, k.Kid)
			}
			pub = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		case "EC":
			if k.Crv != "P-256" {
				continue
			}
			x, err1 := b64(k.X)
			y, err2 := b64(k.Y)
			if err := errors.Join(err1, err2); err != nil || len(x) != 32 || len(y) != 32 {
				return nil, fmt.Errorf("key %d (%s): not a P-256 point", i, k.Kid)
			}
			// The uncompressed encoding; ecdsa.ParseUncompressedPublicKey checks the
			// point is on the curve.
			pt := append(append([]byte{4}, x...), y...)
			ec, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), pt)
			if err != nil {
				return nil, fmt.Errorf("key %d (%s): %w", i, k.Kid, err)
			}
			pub = ec
		default:
			continue
		}
		if _, dup := v.keys[k.Kid]; dup {
			return nil, fmt.Errorf("key %d: kid %q twice", i, k.Kid)
		}
		v.keys[k.Kid] = pub
	}
	if len(v.keys) == 0 {
		return nil, errors.New("no RSA or P-256 signing key")
	}
	return v, nil
}

func b64(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }

// invalid is a refusal: it wraps sdkauth.ErrInvalidToken (401) and never quotes the
// token.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sdkauth.ErrInvalidToken}, args...)...)
}

// numericDate is a JWT NumericDate: seconds since the epoch, possibly fractional.
type numericDate struct {
	t   time.Time
	set bool
}

func (d *numericDate) UnmarshalJSON(b []byte) error {
	var f json.Number
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	x, err := f.Float64()
	if err != nil {
		return err
	}
	sec := int64(x)
	d.t = time.Unix(sec, int64((x-float64(sec))*1e9))
	d.set = true
	return nil
}

// audience is aud (or scp): one string or a list.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*a = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*a = many
	return nil
}

type claims struct {
	Iss   string      `json:"iss"`
	Sub   string      `json:"sub"`
	Aud   audience    `json:"aud"`
	Exp   numericDate `json:"exp"`
	Nbf   numericDate `json:"nbf"`
	Scope string      `json:"scope"`
	// Scp is the list some issuers (Okta, Entra ID) send instead of scope.
	Scp audience `json:"scp"`
}

// Verify checks a compact JWS and returns its principal and expiry.
func (v *JWTVerifier) Verify(token string) (*Principal, time.Time, error) {
	if len(token) > maxJWT {
		return nil, time.Time{}, invalid("jwt over %d bytes", maxJWT)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return nil, time.Time{}, invalid("not a compact JWT")
	}
	hb, err := b64(parts[0])
	if err != nil {
		return nil, time.Time{}, invalid("jwt header is not base64url")
	}
	var hdr struct {
		Alg  string `json:"alg"`
		Kid  string `json:"kid"`
		Crit []any  `json:"crit"`
	}
	if err := json.Unmarshal(hb, &hdr); err != nil {
		return nil, time.Time{}, invalid("jwt header is not JSON")
	}
	if hdr.Crit != nil {
		return nil, time.Time{}, invalid("jwt header has crit extensions this server does not know")
	}
	key, ok := v.keys[hdr.Kid]
	if !ok {
		return nil, time.Time{}, invalid("no key with kid %q", hdr.Kid)
	}
	sig, err := b64(parts[2])
	if err != nil {
		return nil, time.Time{}, invalid("jwt signature is not base64url")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	switch k := key.(type) {
	case *rsa.PublicKey:
		if hdr.Alg != "RS256" {
			return nil, time.Time{}, invalid("alg %q with an RSA key; want RS256", hdr.Alg)
		}
		if rsa.VerifyPKCS1v15(k, crypto.SHA256, digest[:], sig) != nil {
			return nil, time.Time{}, invalid("bad signature")
		}
	case *ecdsa.PublicKey:
		if hdr.Alg != "ES256" {
			return nil, time.Time{}, invalid("alg %q with an EC key; want ES256", hdr.Alg)
		}
		// JWS ES256 signatures are r and s, 32 bytes each (RFC 7518 §3.4), not ASN.1.
		if len(sig) != 64 || !ecdsa.Verify(k, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
			return nil, time.Time{}, invalid("bad signature")
		}
	}
	// Only a signed payload is read.
	pb, err := b64(parts[1])
	if err != nil {
		return nil, time.Time{}, invalid("jwt payload is not base64url")
	}
	var c claims
	dec := json.NewDecoder(bytes.NewReader(pb))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return nil, time.Time{}, invalid("jwt claims: %v", err)
	}
	now := time.Now
	if v.Now != nil {
		now = v.Now
	}
	t := now()
	switch {
	case c.Iss != v.Issuer:
		return nil, time.Time{}, invalid("issuer %q is not %q", c.Iss, v.Issuer)
	case !oauthex.MatchesResource(c.Aud, v.Audience):
		return nil, time.Time{}, invalid("audience %q does not include %s", []string(c.Aud), v.Audience)
	case !c.Exp.set:
		return nil, time.Time{}, invalid("no exp claim")
	case !t.Before(c.Exp.t.Add(v.Leeway)):
		return nil, time.Time{}, invalid("expired at %s", c.Exp.t.UTC().Format(time.RFC3339))
	case c.Nbf.set && t.Add(v.Leeway).Before(c.Nbf.t):
		return nil, time.Time{}, invalid("not valid before %s", c.Nbf.t.UTC().Format(time.RFC3339))
	case c.Sub == "":
		return nil, time.Time{}, invalid("no sub claim")
	}
	var grants []string
	for _, s := range append(strings.Fields(c.Scope), c.Scp...) {
		if _, ok := v.policy.byName[s]; ok && !slices.Contains(grants, s) {
			grants = append(grants, s)
		}
	}
	grants, _ = v.policy.checkGrants(grants) // in grant_order
	id := c.Iss + "#" + c.Sub
	ws := sha256.Sum256([]byte(id))
	return &Principal{
		Name:   c.Sub,
		UserID: "jwt:" + id,
		Grants: grants,
		// Subjects are the issuer's strings ("auth0|6f1…"), not names: the workspace is
		// named from a hash of issuer and subject, so it is a #Name and no two
		// subjects share one.
		Workspace: "jwt_" + hex.EncodeToString(ws[:10]),
		Limits:    v.policy.defaults,
	}, c.Exp.t, nil
}

// TokenVerifier is Verify for auth.RequireBearerToken; the TokenInfo carries exp.
func (v *JWTVerifier) TokenVerifier() sdkauth.TokenVerifier {
	return func(_ context.Context, token string, _ *http.Request) (*sdkauth.TokenInfo, error) {
		p, exp, err := v.Verify(token)
		if err != nil {
			return nil, err
		}
		ti := p.tokenInfo()
		ti.Expiration = exp
		return ti, nil
	}
}

// Verifier accepts a bearer token from the file or a JWT (either may be nil): a
// token with two dots is a JWT, anything else is looked up in the file.
func Verifier(store *Store, jwt *JWTVerifier) sdkauth.TokenVerifier {
	return func(ctx context.Context, token string, r *http.Request) (*sdkauth.TokenInfo, error) {
		if strings.Count(token, ".") == 2 && jwt != nil {
			return jwt.TokenVerifier()(ctx, token, r)
		}
		if store != nil {
			return store.TokenVerifier()(ctx, token, r)
		}
		return nil, invalid("unknown bearer token")
	}
}
