/** The operations an AdmissionReview request carries. */
export const ADMISSION_OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'] as const;
export type AdmissionOperation = (typeof ADMISSION_OPERATIONS)[number];
