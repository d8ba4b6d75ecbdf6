/** The default consent disclosure in Italian, one entry per paragraph (see ../consent-text.ts). */
export const it: readonly string[] = [
  'Consenso all’uso di documenti e firme elettronici',
  'Il mittente di questo documento chiede di fornirLe il documento e di ottenere la Sua firma in forma elettronica. Prima di proseguire, La preghiamo di leggere quanto segue.',
  'Copie cartacee. Ha il diritto di ricevere invece questo documento in formato cartaceo. Per richiederne una copia cartacea, contatti il mittente tramite i recapiti di cui già dispone; il mittente può addebitarLe un costo ragionevole, previa comunicazione. Dopo la firma riceverà il documento completato via e-mail e potrà stamparlo.',
  'Revoca del consenso. Può revocare il Suo consenso a operare in forma elettronica in qualsiasi momento prima di firmare, scegliendo «Non accetto» in questa pagina oppure comunicandolo al mittente. La revoca pone fine a questa richiesta di firma elettronica: il documento viene rifiutato e il mittente dovrà fornirLe il documento in formato cartaceo o con altre modalità. La revoca non pregiudica gli effetti giuridici di quanto Lei abbia firmato in precedenza in forma elettronica.',
  'Ambito. Il Suo consenso si applica a questo documento e alle comunicazioni che lo riguardano e che Le inviamo via e-mail.',
  'Hardware e software. Sono necessari un dispositivo con accesso a internet, un browser web aggiornato (ad esempio una versione recente di Chrome, Edge, Firefox o Safari) con JavaScript abilitato, un account e-mail e la possibilità di visualizzare e salvare o stampare file PDF.',
  'Aggiornamento dei recapiti. Se il Suo indirizzo e-mail o altri recapiti cambiano, lo comunichi al mittente affinché possa contattarLa in merito a questo documento.',
  'Scegliendo «Accetto», Lei conferma di poter accedere a questa informativa e a documenti in formato PDF e di poterli leggere, e acconsente all’uso di documenti e firme elettronici per questo documento.',
];
