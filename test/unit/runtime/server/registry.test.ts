/** registerWebhooks with handler instances: constructed by the caller, in place of `new Class()`. */
import { describe, expect, it } from 'vitest';
import { registerWebhooks, RegistrationError } from '../../../../runtime/server/registry.js';
import { ReplicaLimitValidator } from '../../../fixtures/runtime/configured-handler.js';
import { WidgetValidator } from '../../../fixtures/runtime/handlers.js';

describe('registerWebhooks with instances', () => {
  it('serves an instance in place of the listed class with its path, and an instance no module lists', () => {
    const limits = new ReplicaLimitValidator({ maxReplicas: 3 });
    const listed = registerWebhooks([WidgetValidator, ReplicaLimitValidator], 'dist/webhooks.generated.js', [limits]);
    expect([...listed].map(([path, entry]) => [path, entry.source, entry.handler === limits])).toEqual([
      ['/validate-widget', 'dist/webhooks.generated.js#WidgetValidator', false],
      ['/validate-replicas', 'instances[0]#ReplicaLimitValidator', true],
    ]);
    const unlisted = registerWebhooks([], 'none', [limits]);
    expect([...unlisted].map(([path, entry]) => [path, entry.handler === limits])).toEqual([['/validate-replicas', true]]);
  });

  it('refuses, in one line saying the fix, a class that needs constructor arguments, an undecorated instance, and two instances for one path', () => {
    expect(() => registerWebhooks([ReplicaLimitValidator], 'dist/webhooks.generated.js')).toThrow(
      new RegistrationError(
        'ReplicaLimitValidator (/validate-replicas) declares constructor parameters, which new ReplicaLimitValidator() would leave undefined: give them defaults, or construct it yourself and pass it to startServer({ instances: [new ReplicaLimitValidator(…)] }) from shaper-gen/server',
      ),
    );
    expect(() => registerWebhooks([], 'none', [new (class Plain {})() as never])).toThrow(new RegistrationError('instances[0]#Plain is not an instance of a class decorated with @Webhook'));
    const two = [new ReplicaLimitValidator({ maxReplicas: 1 }), new ReplicaLimitValidator({ maxReplicas: 2 })];
    expect(() => registerWebhooks([], 'none', two)).toThrow(
      new RegistrationError('instances[1]#ReplicaLimitValidator: instances[0]#ReplicaLimitValidator already serves /validate-replicas; pass one instance per webhook'),
    );
  });
});
