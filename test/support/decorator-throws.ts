/** What a class decorator throws when it is applied with `options` to a class named `name`; fails the test when it throws nothing. */
export function decoratorThrows(decorator: (options: never) => (target: never) => unknown, options: unknown, name: string): unknown {
  const target = { [name]: class {} }[name]!;
  try {
    decorator(options as never)(target as never);
  } catch (error) {
    return error;
  }
  throw new Error(`expected the decorator to throw for class ${name}`);
}
