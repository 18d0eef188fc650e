/**
 * Names of the generated types, by kopium's rule: a kind's type is the kind,
 * an object nested in it is the enclosing type's name followed by the field's
 * name in PascalCase (`Certificate` › `CertificateSpec` ›
 * `CertificateSpecPrivateKey`); an array's items and a map's values take the
 * name of the field that holds them. A name already taken in the module gets
 * the first free number: `CertificateSpecRequest2`.
 */

/** `privateKey` → `PrivateKey`, `x-kubernetes` → `XKubernetes`, `emailSANs` → `EmailSANs`: each word's first letter raised, the rest kept. */
export function pascalCase(field: string): string {
  const words = field.split(/[^A-Za-z0-9]+/).filter((word) => word !== '');
  return words.length === 0 ? 'Field' : words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join('');
}

/** `certificates` → `CERTIFICATES`, `foo-bars` → `FOO_BARS`. */
export function constantCase(plural: string): string {
  return plural.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
}

/** Hands out names unique within one module, in the order they are asked for. */
export class NameAllocator {
  private readonly taken: Set<string>;

  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved);
  }

  /** `wanted`, or when taken, `wanted` followed by `suffix` and then the first number that makes it free. */
  claim(wanted: string, suffix = ''): string {
    let name = wanted;
    if (this.taken.has(name) && suffix !== '') name = `${wanted}${suffix}`;
    for (let n = 2; this.taken.has(name); n++) name = `${wanted}${suffix}${n}`;
    this.taken.add(name);
    return name;
  }
}
