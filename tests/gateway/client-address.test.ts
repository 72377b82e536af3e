import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/env.ts';
import { clientAddressOf, trustedProxies } from '../../src/gateway/client-address.ts';
import { createTestApp } from '../helpers.ts';

describe('the client address behind proxies (TRUSTED_PROXIES)', () => {
  const proxies = trustedProxies(['10.0.0.0/8', '192.168.1.10', 'fd00::/8']);

  test('X-Forwarded-For counts only when the peer is a trusted proxy, read from the right past trusted hops', () => {
    expect(clientAddressOf('10.1.2.3', '203.0.113.5', proxies)).toBe('203.0.113.5');
    expect(clientAddressOf('::ffff:10.1.2.3', '203.0.113.5', proxies)).toBe('203.0.113.5');
    expect(clientAddressOf('192.168.1.10', '198.51.100.1, 203.0.113.5, 10.9.9.9', proxies)).toBe('203.0.113.5');
    // A client's own header entries left of the first untrusted address are never believed.
    expect(clientAddressOf('10.1.2.3', '1.1.1.1, 203.0.113.5', proxies)).toBe('203.0.113.5');
    // Not from a proxy: the header is the client's own claim.
    expect(clientAddressOf('198.51.100.7', '203.0.113.5', proxies)).toBe('198.51.100.7');
    expect(clientAddressOf('192.168.1.11', '203.0.113.5', proxies)).toBe('192.168.1.11');
    // Garbage ends the walk; only trusted hops: the leftmost of them.
    expect(clientAddressOf('10.1.2.3', 'nonsense, 203.0.113.5', proxies)).toBe('203.0.113.5');
    expect(clientAddressOf('10.1.2.3', 'nonsense', proxies)).toBe('10.1.2.3');
    expect(clientAddressOf('10.1.2.3', '10.0.0.1', proxies)).toBe('10.0.0.1');
    expect(clientAddressOf('fd12::1', '2001:db8::7', proxies)).toBe('2001:db8::/64');
    // None trusted (the default): the peer, whatever the header says.
    expect(clientAddressOf('10.1.2.3', '203.0.113.5', trustedProxies([]))).toBe('10.1.2.3');
    expect(clientAddressOf(undefined, '203.0.113.5', proxies)).toBe('unknown');
  });

  test('behind a trusted load balancer, each client has its own per-address budget; a spoofed header from elsewhere changes nothing', async () => {
    const t = await createTestApp({ anonymousRateLimit: 2, trustedProxies: ['10.0.0.0/8'] });
    t.clock.now = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 1000);
    const guess = (address: string, forwardedFor: string) =>
      t.call('GET', '/tenants/me', { token: 'sk_test_guess', address, headers: { 'x-forwarded-for': forwardedFor } });
    // Two clients behind the balancer at 10.0.0.2: each gets the budget of 2.
    for (const client of ['203.0.113.5', '203.0.113.6']) {
      expect((await guess('10.0.0.2', client)).status).toBe(401);
      expect((await guess('10.0.0.2', client)).status).toBe(401);
      expect((await guess('10.0.0.2', client)).status).toBe(429);
    }
    // A direct caller cannot buy a fresh budget by inventing X-Forwarded-For.
    expect((await guess('198.51.100.7', '192.0.2.1')).status).toBe(401);
    expect((await guess('198.51.100.7', '192.0.2.2')).status).toBe(401);
    expect((await guess('198.51.100.7', '192.0.2.3')).status).toBe(429);
  });

  test('X-Forwarded-For hops written with a port are the client, not the proxy', () => {
    expect(clientAddressOf('10.1.2.3', '203.0.113.5:51234', proxies)).toBe('203.0.113.5');
    expect(clientAddressOf('10.1.2.3', '[2001:db8:1:2::7]:443', proxies)).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf('10.1.2.3', '[2001:db8:1:2::7]', proxies)).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf('10.1.2.3', '198.51.100.1:80, 203.0.113.5:9, 10.9.9.9:3128', proxies)).toBe('203.0.113.5');
    // Still not an address: the walk ends there.
    expect(clientAddressOf('10.1.2.3', '203.0.113.5:port', proxies)).toBe('10.1.2.3');
    expect(clientAddressOf('10.1.2.3', '[nonsense]:80', proxies)).toBe('10.1.2.3');
  });

  test("behind a trusted proxy that appends ports, each client has its own budget, not the proxy's one", async () => {
    const t = await createTestApp({ anonymousRateLimit: 1, trustedProxies: ['10.0.0.0/8'] });
    t.clock.now = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 1000);
    const guess = (forwardedFor: string) =>
      t.call('GET', '/tenants/me', { token: 'sk_test_guess', address: '10.0.0.2', headers: { 'x-forwarded-for': forwardedFor } });
    for (const client of ['203.0.113.5:40001', '203.0.113.6:40002', '[2001:db8:5::1]:40003', '[2001:db8:6::1]:40004']) {
      expect((await guess(client)).status).toBe(401);
    }
    // A second port of a client already counted is the same client.
    expect((await guess('203.0.113.5:40009')).status).toBe(429);
  });

  test("IPv6 clients are counted per /64: a network's addresses share one budget, IPv4 stays per address", async () => {
    const t = await createTestApp({ anonymousRateLimit: 3 });
    t.clock.now = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 1000);
    const guess = (address: string) => t.call('GET', '/tenants/me', { token: 'sk_test_guess', address });
    const statuses = [];
    for (let i = 1; i <= 5; i++) statuses.push((await guess(`2001:db8:a:b::${i.toString(16)}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
    // Another /64 of the same /48, and IPv4 neighbours, each have their own.
    expect((await guess('2001:db8:a:c::1')).status).toBe(401);
    for (let i = 1; i <= 4; i++) expect((await guess(`198.51.100.${i}`)).status).toBe(401);
  });

  test('the portal and the health probes count per /64 too', async () => {
    const t = await createTestApp({ portalRateLimit: 2, probeRateLimit: 2 });
    t.clock.now = new Date(Math.ceil(Date.now() / 60_000) * 60_000 + 1000);
    for (const path of ['/portal/ten_missing/ticket?clave=0000000000000000000000000Z', '/api/v1/health/live']) {
      const from = (address: string) => t.app.request(path, {}, { requestIP: () => ({ address, family: 'IPv6', port: 40000 }) });
      expect((await from('2001:db8:9:1::1')).status).not.toBe(429);
      expect((await from('2001:db8:9:1::2')).status).not.toBe(429);
      expect((await from('2001:db8:9:1::3')).status).toBe(429);
      expect((await from('2001:db8:9:2::1')).status).not.toBe(429);
    }
  });

  test('TRUSTED_PROXIES must be addresses or CIDR ranges', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cfdi-proxies-'));
    expect(loadConfig({ DATA_DIR: dataDir, TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.10' }).trustedProxies).toEqual(['10.0.0.0/8', '192.168.1.10']);
    expect(loadConfig({ DATA_DIR: dataDir }).trustedProxies).toEqual([]);
    expect(() => loadConfig({ DATA_DIR: dataDir, TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dataDir, TRUSTED_PROXIES: 'loadbalancer.internal' })).toThrow(/TRUSTED_PROXIES/);
  });
});
