/** The default consent disclosure in Norwegian Bokmål, one entry per paragraph (see ../consent-text.ts). */
export const nb: readonly string[] = [
  'Samtykke til bruk av elektroniske dokumenter og signaturer',
  'Avsenderen av dette dokumentet ønsker å gi deg det og innhente signaturen din elektronisk. Les følgende før du fortsetter.',
  'Papirkopi. Du har rett til å få dokumentet på papir i stedet. Hvis du vil ha en papirkopi, kontakter du avsenderen via kontaktopplysningene du allerede har; avsenderen kan kreve et rimelig gebyr hvis du har fått beskjed om det. Når du har signert, får du det ferdige dokumentet på e-post og kan skrive det ut.',
  'Tilbaketrekking av samtykket. Du kan når som helst før du signerer trekke tilbake samtykket ditt til å gjennomføre dette elektronisk, ved å velge «Jeg godtar ikke» på denne siden eller ved å gi beskjed til avsenderen. Når du trekker samtykket tilbake, avsluttes denne forespørselen om elektronisk signering: Dokumentet avslås, og avsenderen må gi deg det på papir eller på annen måte. Tilbaketrekkingen påvirker ikke rettsvirkningen av det du tidligere har signert elektronisk.',
  'Omfang. Samtykket ditt gjelder dette dokumentet og varslene om det som vi sender deg på e-post.',
  'Maskinvare og programvare. Du trenger en enhet med internettilgang, en oppdatert nettleser (for eksempel en nyere versjon av Chrome, Edge, Firefox eller Safari) med JavaScript slått på, en e-postkonto og mulighet til å vise og lagre eller skrive ut PDF-filer.',
  'Oppdatering av kontaktopplysningene dine. Hvis e-postadressen din eller andre kontaktopplysninger endres, må du gi beskjed til avsenderen, slik at avsenderen kan nå deg om dette dokumentet.',
  'Ved å velge «Jeg godtar» bekrefter du at du har tilgang til og kan lese denne informasjonen og dokumenter i PDF-format, og at du samtykker til bruk av elektroniske dokumenter og signaturer for dette dokumentet.',
];
