// Settings that guard the service from its clients: each bad value stops the start with a
// sentence naming it (src/config.ts), each good one reaches the server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.ts';

test('BILLRUN_TRUST_PROXY takes addresses and CIDRs, and refuses anything else by name', () => {
  assert.deepEqual(loadConfig({}).trustProxy, []);
  assert.deepEqual(loadConfig({ BILLRUN_TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,::1,fd00::/8' }).trustProxy, ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8']);
  for (const bad of ['proxy.local', '10.0.0.1/33', '10.0.0.300', '10.0.0.0/8/1', 'fd00::/129']) {
    assert.throws(() => loadConfig({ BILLRUN_TRUST_PROXY: bad }), (err: unknown) => err instanceof ConfigError && err.message.includes('BILLRUN_TRUST_PROXY') && err.message.includes(bad), bad);
  }
});

test('REQUEST_TIMEOUT_SECONDS is 300 by default and bounded', () => {
  assert.equal(loadConfig({}).requestTimeoutSeconds, 300);
  assert.equal(loadConfig({ REQUEST_TIMEOUT_SECONDS: '60' }).requestTimeoutSeconds, 60);
  assert.throws(() => loadConfig({ REQUEST_TIMEOUT_SECONDS: '0' }), ConfigError);
});
