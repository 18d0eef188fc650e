import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, mergeServerConfig, parseServerConfig } from '../../../../runtime/config/server-config.js';
import { ConfigError, formatProblem } from '../../../../runtime/problems.js';
import { CIPHER_SUITE_NAMES } from '../../../../runtime/tls/cipher-suites.js';

describe('ServerConfig', () => {
  it('fills defaults under what the file sets', () => {
    const config = parseServerConfig(`apiVersion: shaper-gen.io/v1alpha1
kind: ServerConfig
handlers: [dist/sample/webhooks.generated.js]
expectedPaths: [/validate-assignment, /mutate-profile]
webhook: { port: 10443, clientCAName: ca.crt }
shutdown: { drainSeconds: 3 }
`);
    expect(config.handlers).toEqual(['dist/sample/webhooks.generated.js']);
    expect(config.expectedPaths).toEqual(['/validate-assignment', '/mutate-profile']);
    expect(config.webhook).toEqual({ ...DEFAULT_SERVER_CONFIG.webhook, port: 10443, clientCAName: 'ca.crt' });
    expect(config.shutdown).toEqual({ drainSeconds: 3, timeoutSeconds: 20 });
    expect(config.health.port).toBe(8081);
    expect(config.metrics.port).toBe(8080);
  });

  it('reports every problem as file:line:col', () => {
    const text = `apiVersion: shaper-gen.io/v1
kind: ServerConfig
webhook:
  port: 70000
  certname: tls.crt
  keyName: keys/tls.key
log: { level: loud }
`;
    let error: unknown;
    try {
      parseServerConfig(text, 'config.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems.map((problem) => formatProblem(problem))).toEqual([
      'config.yaml:1:13: apiVersion: must be one of shaper-gen.io/v1alpha1',
      'config.yaml:4:9: webhook.port: must be an integer from 0 to 65535',
      'config.yaml:5:3: webhook.certname: unknown key; did you mean "certName"? expected one of bindAddress, port, certDir, certName, keyName, clientCAName, tlsMinVersion, cipherSuites, maxRequestBytes, maxConnections, maxHandshakes, certPollSeconds',
      'config.yaml:6:12: webhook.keyName: must be a file name inside certDir, without slashes',
      'config.yaml:7:15: log.level: must be one of trace, debug, info, warn, error, fatal',
    ]);
  });

  it('takes conversion paths among expectedPaths, as the chart lists /convert beside the webhook paths', () => {
    const header = 'apiVersion: shaper-gen.io/v1alpha1\nkind: ServerConfig\n';
    const config = parseServerConfig(`${header}expectedPaths: [/convert, /convert-profiles, /mutate-profile]\n`);
    expect(config.expectedPaths).toEqual(['/convert', '/convert-profiles', '/mutate-profile']);
    expect(() => parseServerConfig(`${header}expectedPaths: [/converter, /convert-, /healthz]\n`, 'config.yaml')).toThrow(
      [
        'invalid server configuration:',
        '  config.yaml:3:17: expectedPaths[0]: path "/converter" must be "/validate-<name>", "/mutate-<name>", "/convert" or "/convert-<name>"',
        '  config.yaml:3:29: expectedPaths[1]: path "/convert-": segment[0] "convert-" must be a lowercase RFC 1123 subdomain (letters, digits, "-" and ".", beginning and ending with a letter or digit), as the API server requires of every path segment',
        '  config.yaml:3:40: expectedPaths[2]: path "/healthz" must be "/validate-<name>", "/mutate-<name>", "/convert" or "/convert-<name>"',
      ].join('\n'),
    );
  });

  it('takes TLS 1.2 cipher suites by IANA or OpenSSL name, and names the allowed ones on one line otherwise', () => {
    const header = 'apiVersion: shaper-gen.io/v1alpha1\nkind: ServerConfig\n';
    const config = parseServerConfig(`${header}webhook: { cipherSuites: [TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ECDHE-ECDSA-AES128-SHA] }\n`);
    expect(config.webhook.cipherSuites).toEqual(['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'ECDHE-ECDSA-AES128-SHA']);
    expect(() => parseServerConfig(`${header}webhook: { cipherSuites: [AES128-SHA] }\n`, 'config.yaml')).toThrow(
      `invalid server configuration:\n  config.yaml:3:27: webhook.cipherSuites[0]: must be one of ${CIPHER_SUITE_NAMES.join(', ')}`,
    );
  });

  it('lets flags override single keys without dropping the file’s others', () => {
    const merged = mergeServerConfig(DEFAULT_SERVER_CONFIG, { webhook: { port: 1, certDir: undefined } });
    expect(merged.webhook.certDir).toBe(DEFAULT_SERVER_CONFIG.webhook.certDir);
    expect(merged.webhook.port).toBe(1);
  });
});
